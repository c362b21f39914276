/**
 * Field schemas shared by the charts. Charts cannot import src/ (they are self-contained), so the
 * Kubernetes rules the API server would enforce come from rules/, the folder charts, src and
 * kube-sim share: a chart refuses what the cluster would refuse, before anything is written.
 * Messages say what is accepted.
 */
import { z } from 'zod';
import { DNS1123_SUBDOMAIN, dns1123Label, dns1123Subdomain } from '../rules/names.ts';
import { formatBytes, utf8Bytes } from './encoding.ts';

export { APP_NAME_MAX, appName, PROCESS_TYPE_MAX } from '../rules/app-names.ts';

/** Label values: empty, or alphanumerics with `-`, `_`, `.` inside. */
export const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Annotations of one object may total 256 KiB (keys and values). */
export const ANNOTATIONS_MAX_BYTES = 256 * 1024;

export const namespaceName = dns1123Label({ required: 'is required (a namespace)' });

/** Names of Secrets, PVCs and other namespaced objects (DNS-1123 subdomain). */
export const objectName = dns1123Subdomain({ required: 'must not be empty' });

/** Why `key` is not a qualified name (`[prefix/]name`), or undefined when it is one. */
export function qualifiedNameProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) {
    return `key "${key}": the prefix before "/" must be a DNS-1123 subdomain`;
  }
  if (name.length > 63 || !QUALIFIED_NAME.test(name)) {
    return `key "${key}": the name must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`;
  }
  return undefined;
}

/** User labels: qualified-name keys, label values. */
export const userLabels = z.record(z.string(), z.string()).superRefine((labels, ctx) => {
  for (const [key, value] of Object.entries(labels)) {
    const problem = qualifiedNameProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
    if (value.length > 63 || !LABEL_VALUE.test(value)) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message:
          'must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
      });
    }
  }
});

/** User annotations: qualified-name keys, any values, 256 KiB in all. */
export const userAnnotations = z.record(z.string(), z.string()).superRefine((annotations, ctx) => {
  let bytes = 0;
  for (const [key, value] of Object.entries(annotations)) {
    const problem = qualifiedNameProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
    bytes += utf8Bytes(key) + utf8Bytes(value);
  }
  if (bytes > ANNOTATIONS_MAX_BYTES) {
    ctx.addIssue({
      code: 'custom',
      message: `are ${formatBytes(bytes)} bytes in all; an object's annotations may total at most ${formatBytes(ANNOTATIONS_MAX_BYTES)}`,
    });
  }
});
