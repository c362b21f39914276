/**
 * Ingress hostnames as the API server accepts them in `spec.rules[].host` (k8s.io/kubernetes
 * pkg/apis/networking/validation: IsDNS1123Subdomain, or IsWildcardDNS1123Subdomain for a leading
 * `*.`; never an IP address), with RFC 1035's 63-character limit per part, which DNS enforces
 * even though the subdomain pattern does not.
 */
import { z } from 'zod';
import { DNS1123_LABEL_MAX, DNS1123_SUBDOMAIN, DNS1123_SUBDOMAIN_MAX } from './names.ts';

export const HOSTNAME_MESSAGE =
  'must be a hostname such as app.example.com or *.example.com (lowercase letters, digits, "-" and ".")';

/** Why `host` is not an Ingress hostname, or undefined. Upper case is refused, not folded. */
export function hostnameProblem(host: string): string | undefined {
  if (host.length > DNS1123_SUBDOMAIN_MAX) return `must be at most ${DNS1123_SUBDOMAIN_MAX} characters`;
  const body = host.startsWith('*.') ? host.slice(2) : host;
  if (!DNS1123_SUBDOMAIN.test(body)) return HOSTNAME_MESSAGE;
  if (body.split('.').some((part) => part.length > DNS1123_LABEL_MAX))
    return `each part must be at most ${DNS1123_LABEL_MAX} characters`;
  if (/^[0-9.]+$/.test(host)) return 'must be a hostname, not an IP address';
  return undefined;
}

/** A hostname exactly as given (the charts: values are already normalised). */
export const hostname = z.string().superRefine((host, ctx) => {
  const problem = hostnameProblem(host);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** A hostname as a person types it: DNS is case-insensitive, so `App.Example.com` is lowercased. */
export const hostnameInput = z
  .string()
  .transform((host) => host.toLowerCase())
  .pipe(hostname);
