/**
 * Kubernetes name formats, as k8s.io/apimachinery/pkg/util/validation defines them
 * (validation.go: IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label): the pattern, the longest
 * name, and one message each for what a person must change. The patterns are kept as upstream's
 * format strings too, so kube-sim can quote them in upstream's own error messages.
 *
 * Upstream counts bytes; every accepted character is ASCII, so a name that passes the pattern has
 * as many bytes as characters, and a length check on characters gives the same verdict.
 * The zod schemas built from them are in name-schemas.ts: this file loads no schema library.
 */
/** DNS-1123 label (RFC 1123): namespaces, volume names, storage entries. */
export const DNS1123_LABEL_FORMAT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
export const DNS1123_LABEL_MAX = 63;
export const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FORMAT}$`);
export const DNS1123_LABEL_MESSAGE =
  'must be a DNS-1123 label (lowercase letters, digits and "-", starting and ending with a letter or digit)';

/** DNS-1123 subdomain: dot-separated labels; the names of most namespaced objects. */
export const DNS1123_SUBDOMAIN_FORMAT = `${DNS1123_LABEL_FORMAT}(\\.${DNS1123_LABEL_FORMAT})*`;
export const DNS1123_SUBDOMAIN_MAX = 253;
export const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FORMAT}$`);
export const DNS1123_SUBDOMAIN_MESSAGE =
  'must be a DNS-1123 subdomain (lowercase letters, digits, "-" and ".", starting and ending with a letter or digit)';

/** DNS-1035 label (RFC 1035): like a DNS-1123 label, but starting with a letter; Services. */
export const DNS1035_LABEL_FORMAT = '[a-z]([-a-z0-9]*[a-z0-9])?';
export const DNS1035_LABEL_MAX = 63;
export const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FORMAT}$`);
export const DNS1035_LABEL_MESSAGE =
  'must be lowercase letters, digits and "-", start with a letter and end with a letter or digit';

export const isDNS1123Label = (name: string, max = DNS1123_LABEL_MAX): boolean =>
  name.length <= max && DNS1123_LABEL.test(name);

export const isDNS1123Subdomain = (name: string, max = DNS1123_SUBDOMAIN_MAX): boolean =>
  name.length <= max && DNS1123_SUBDOMAIN.test(name);

export const isDNS1035Label = (name: string, max = DNS1035_LABEL_MAX): boolean =>
  name.length <= max && DNS1035_LABEL.test(name);

/** Why `name` is not a DNS-1123 label of at most `max` characters, or undefined. */
export function dns1123LabelProblem(name: string, max = DNS1123_LABEL_MAX): string | undefined {
  if (name.length > max) return `must be at most ${max} characters`;
  return DNS1123_LABEL.test(name) ? undefined : DNS1123_LABEL_MESSAGE;
}
