/**
 * Field schemas shared by the charts. Charts cannot import src/jobs (they are self-contained), so
 * these restate the Kubernetes rules the API server would enforce: a chart refuses what the cluster
 * would refuse, before anything is written. Messages say what is accepted.
 */
import { z } from 'zod';
import { formatBytes, utf8Bytes } from './encoding.ts';

export const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** Label values: empty, or alphanumerics with `-`, `_`, `.` inside. */
export const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Longest app name: every name derived from it fits without shortening (docs/architecture.md). */
export const APP_NAME_MAX = 30;
/** Longest process type: `{app}-{process}` ≤ 51 characters. */
export const PROCESS_TYPE_MAX = 20;
/** Annotations of one object may total 256 KiB (keys and values). */
export const ANNOTATIONS_MAX_BYTES = 256 * 1024;

export const appName = z
  .string()
  .min(1, 'is required (an app name)')
  .max(APP_NAME_MAX, `must be at most ${APP_NAME_MAX} characters`)
  .regex(
    DNS1035_LABEL,
    'must be lowercase letters, digits and "-", start with a letter and end with a letter or digit',
  );

export const namespaceName = z
  .string()
  .min(1, 'is required (a namespace)')
  .max(63, 'must be at most 63 characters')
  .regex(DNS1123_LABEL, 'must be a DNS-1123 label (lowercase letters, digits and "-")');

/** Names of Secrets, PVCs and other namespaced objects (DNS-1123 subdomain). */
export const objectName = z
  .string()
  .min(1, 'must not be empty')
  .max(253, 'must be at most 253 characters')
  .regex(DNS1123_SUBDOMAIN, 'must be a DNS-1123 subdomain (lowercase letters, digits, "-" and ".")');

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
