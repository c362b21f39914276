/**
 * Label keys, label values and annotation keys, as k8s.io/apimachinery/pkg/util/validation
 * defines them (IsQualifiedName, IsValidLabelValue) and apimachinery's ValidateAnnotations sizes
 * them (TotalAnnotationSizeLimitB = 256 KiB). One definition for the job contracts (properties),
 * the charts (user labels and annotations) and kube-sim (selectors and metadata validation, which
 * keep upstream's own messages around the same formats).
 */
import { z } from 'zod';
import { DNS1123_SUBDOMAIN, DNS1123_SUBDOMAIN_FORMAT, DNS1123_SUBDOMAIN_MAX } from './names.ts';

/** The name part of a qualified name: alphanumerics with `-`, `_`, `.` inside. */
export const QUALIFIED_NAME_FORMAT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
export const QUALIFIED_NAME_MAX = 63;
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FORMAT}$`);

/** A whole label key: an optional DNS-1123 subdomain prefix and `/`, then a qualified name. */
export const LABEL_KEY = new RegExp(`^(${DNS1123_SUBDOMAIN_FORMAT}/)?${QUALIFIED_NAME_FORMAT}$`);

/** Label values: empty, or a qualified name's characters. */
export const LABEL_VALUE_FORMAT = `(${QUALIFIED_NAME_FORMAT})?`;
export const LABEL_VALUE_MAX = 63;
export const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FORMAT}$`);
export const LABEL_VALUE_MESSAGE =
  'must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit';

/** Annotations of one object may total 256 KiB (keys and values, in bytes). */
export const ANNOTATIONS_MAX_BYTES = 256 * 1024;

/** Why `key` is not a qualified name (`[prefix/]name`), or undefined when it is one. */
export function qualifiedNameProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > DNS1123_SUBDOMAIN_MAX || !DNS1123_SUBDOMAIN.test(prefix))) {
    return `key "${key}": the prefix before "/" must be a DNS-1123 subdomain`;
  }
  if (name.length > QUALIFIED_NAME_MAX || !QUALIFIED_NAME.test(name)) {
    return `key "${key}": the name must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`;
  }
  return undefined;
}

export const isLabelValue = (value: string): boolean =>
  value.length <= LABEL_VALUE_MAX && LABEL_VALUE.test(value);

/** Labels: qualified-name keys, label values; every bad entry is reported under its key. */
export const userLabels = z.record(z.string(), z.string()).superRefine((labels, ctx) => {
  for (const [key, value] of Object.entries(labels)) {
    const problem = qualifiedNameProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
    if (!isLabelValue(value)) ctx.addIssue({ code: 'custom', path: [key], message: LABEL_VALUE_MESSAGE });
  }
});

/** Annotations: qualified-name keys, any values, 256 KiB in all. */
export const userAnnotations = z.record(z.string(), z.string()).superRefine((annotations, ctx) => {
  let bytes = 0;
  for (const [key, value] of Object.entries(annotations)) {
    const problem = qualifiedNameProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
    bytes += Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8');
  }
  if (bytes > ANNOTATIONS_MAX_BYTES) {
    ctx.addIssue({
      code: 'custom',
      message: `are ${thousands(bytes)} bytes in all; an object's annotations may total at most ${thousands(ANNOTATIONS_MAX_BYTES)}`,
    });
  }
});

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
