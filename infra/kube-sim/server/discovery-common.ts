/** Pieces shared by the discovery and OpenAPI documents (discovery.ts, discovery-openapi.ts). */

import { RESOURCE_TYPES, type ResourceType, type SubresourceType } from '../resources.ts';

/** The Kubernetes release kube-sim claims to be: that of the bundled kubectl (tools.ts). */
export const KUBERNETES_VERSION = { major: '1', minor: '33', gitVersion: 'v1.33.9' } as const;

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** The kind a subresource reads and writes: its own (scale → autoscaling/v1 Scale) or its parent's. */
export function subresourceKind(type: ResourceType, sub: SubresourceType): GroupVersionKind {
  return {
    group: sub.group ?? type.group,
    version: sub.version ?? type.version,
    kind: sub.kind ?? type.kind,
  };
}

/** The types of one group version, by plural name. */
export function typesOf(group: string, version: string): ResourceType[] {
  return RESOURCE_TYPES.filter((t) => t.group === group && t.version === version).sort((a, b) =>
    byteOrder(a.plural, b.plural),
  );
}

export function sorted(values: readonly string[]): string[] {
  return [...values].sort(byteOrder);
}

/** Go's sort.Strings order (UTF-16 code units here, the same for ASCII names), unlike localeCompare. */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
