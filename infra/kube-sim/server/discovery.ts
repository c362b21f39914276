/**
 * Discovery documents (`/version`, `/api`, `/apis`, `/api/v1`, `/apis/<group>/<version>`, and the
 * aggregated apidiscovery.k8s.io/v2 form of `/api` and `/apis`), generated from RESOURCE_TYPES as
 * plain JSON-serializable objects. The HTTP server decides what to serve where; the OpenAPI v3
 * documents live in discovery-openapi.ts and are re-exported here so callers need one import.
 *
 * Shapes follow upstream: apimachinery `pkg/apis/meta/v1/types.go` (APIVersions, APIGroupList,
 * APIResourceList), `k8s.io/api/apidiscovery/v2/types.go`, and apiserver's installer
 * (`ConvertGroupVersionIntoToDiscovery`, subresources carry no singularName, verbs sorted).
 */

import { createHash } from 'node:crypto';
import { groupVersion, type ResourceType, servedGroupVersions } from '../resources.ts';
import {
  byteOrder,
  type GroupVersionKind,
  KUBERNETES_VERSION,
  sorted,
  subresourceKind,
  typesOf,
} from './discovery-common.ts';

export { type GroupVersionKind, KUBERNETES_VERSION } from './discovery-common.ts';
export { openApiV3Document, openApiV3Hash, openApiV3Index } from './discovery-openapi.ts';

/** Response Content-Type of aggregated discovery; client-go checks g, v and as (in any order). */
export const AGGREGATED_DISCOVERY_CONTENT_TYPE =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor: string;
  emulationMinor: string;
  minCompatibilityMajor: string;
  minCompatibilityMinor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: { clientCIDR: string; serverAddress: string }[];
}

export interface APIGroup {
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

/** metav1.APIResource: `group`/`version` only where they differ from the list's (scale → autoscaling/v1). */
export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKind;
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIGroupDiscovery {
  /** `name` is absent for the core group, as Go's omitempty leaves it. */
  metadata: { name?: string };
  versions: { version: string; resources: APIResourceDiscovery[]; freshness: 'Current' }[];
}

export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: 'apidiscovery.k8s.io/v2';
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

export function versionInfo(): VersionInfo {
  const { major, minor, gitVersion } = KUBERNETES_VERSION;
  return {
    major,
    minor,
    // Fields added to version.Info for compatibility versions; older clients ignore them.
    emulationMajor: major,
    emulationMinor: minor,
    minCompatibilityMajor: major,
    minCompatibilityMinor: String(Number(minor) - 1),
    gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2025-01-01T00:00:00Z',
    goVersion: 'go1.24.9',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

/** `/api`. `serverAddress` is host:port as clients reach the server. */
export function apiVersions(serverAddress: string): APIVersions {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** `/apis`: every named group; one version each today, which is therefore the preferred one. */
export function apiGroupList(): APIGroupList {
  const groups = new Map<string, GroupVersionForDiscovery[]>();
  for (const gv of servedGroupVersions()) {
    if (gv.group === '') continue;
    const versions = groups.get(gv.group) ?? [];
    versions.push({ groupVersion: groupVersion(gv), version: gv.version });
    groups.set(gv.group, versions);
  }
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groups].map(([name, versions]) => ({ name, versions, preferredVersion: versions[0]! })),
  };
}

/**
 * `/api/v1` or `/apis/<group>/<version>`; undefined for a group version not served (a 404).
 * Names are sorted byte-wise as upstream sorts its storage paths, which puts `deployments`
 * before `deployments/scale` and `deployments/status`: @kubernetes/client-node takes the first
 * entry whose kind matches, so the main resource must come first.
 */
export function apiResourceList(group: string, version: string): APIResourceList | undefined {
  const types = typesOf(group, version);
  if (types.length === 0) return undefined;
  const resources: APIResource[] = [];
  for (const type of types) {
    resources.push({
      name: type.plural,
      singularName: type.singular,
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: sorted(type.verbs),
      ...nonEmpty('shortNames', type.shortNames),
      ...nonEmpty('categories', type.categories),
      storageVersionHash: storageVersionHash(type),
    });
    for (const sub of type.subresources) {
      const kind = subresourceKind(type, sub);
      resources.push({
        name: `${type.plural}/${sub.name}`,
        singularName: '',
        namespaced: type.namespaced,
        ...(kind.group !== type.group || kind.version !== type.version
          ? { group: kind.group, version: kind.version }
          : {}),
        kind: kind.kind,
        verbs: sorted(sub.verbs),
      });
    }
  }
  resources.sort((a, b) => byteOrder(a.name, b.name));
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupVersion({ group, version }),
    resources,
  };
}

/**
 * Aggregated discovery for `/api` (the core group only) or `/apis` (every named group), served
 * with AGGREGATED_DISCOVERY_CONTENT_TYPE. client-go uses the resources only when both `/api` and
 * `/apis` answer in this form, and drops any subresource without a responseKind.
 */
export function aggregatedDiscovery(which: 'api' | 'apis'): APIGroupDiscoveryList {
  const items: APIGroupDiscovery[] = [];
  for (const group of new Set(servedGroupVersions().map((gv) => gv.group))) {
    if ((group === '') !== (which === 'api')) continue;
    const versions = servedGroupVersions()
      .filter((gv) => gv.group === group)
      .map((gv) => ({
        version: gv.version,
        resources: typesOf(gv.group, gv.version).map(resourceDiscovery),
        freshness: 'Current' as const,
      }));
    items.push({ metadata: group === '' ? {} : { name: group }, versions });
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}

/**
 * Whether a discovery request's Accept header prefers aggregated discovery v2 (kubectl 1.33 and
 * helm 4 send `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json`).
 * Media-type parameters may come in any order; the best servable clause by q-value (then by
 * position) wins, so a client preferring plain JSON gets the legacy documents.
 */
export function wantsAggregatedDiscovery(accept: string | undefined): boolean {
  if (!accept) return false;
  const clauses = accept
    .split(',')
    .map((text, index) => ({ ...parseMediaRange(text), index }))
    .filter((clause) => clause.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const clause of clauses) {
    if (isAggregatedV2(clause)) return true;
    if (isPlainJson(clause)) return false;
  }
  return false;
}

interface MediaRange {
  type: string;
  params: Map<string, string>;
  q: number;
}

function parseMediaRange(text: string): MediaRange {
  const [type = '', ...rest] = text.split(';').map((part) => part.trim());
  const params = new Map<string, string>();
  for (const part of rest) {
    const [name = '', value = ''] = part.split('=', 2).map((piece) => piece.trim());
    if (name && part.includes('=')) params.set(name.toLowerCase(), value.replace(/^"|"$/g, ''));
  }
  const q = params.has('q') ? Number(params.get('q')) : 1;
  params.delete('q');
  return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 };
}

function isAggregatedV2({ type, params }: MediaRange): boolean {
  return (
    type === 'application/json' &&
    params.get('g') === 'apidiscovery.k8s.io' &&
    params.get('v') === 'v2' &&
    params.get('as') === 'APIGroupDiscoveryList'
  );
}

/** A clause answered with the legacy documents: JSON without a conversion target, or a wildcard. */
function isPlainJson({ type, params }: MediaRange): boolean {
  if (type === '*/*' || type === 'application/*') return true;
  return type === 'application/json' && !params.has('as') && !params.has('g') && !params.has('v');
}

function resourceDiscovery(type: ResourceType): APIResourceDiscovery {
  return {
    resource: type.plural,
    responseKind: { group: type.group, version: type.version, kind: type.kind },
    scope: type.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: type.singular,
    verbs: sorted(type.verbs),
    ...nonEmpty('shortNames', type.shortNames),
    ...nonEmpty('categories', type.categories),
    ...(type.subresources.length > 0
      ? {
          subresources: [...type.subresources]
            .sort((a, b) => byteOrder(a.name, b.name))
            .map((sub) => ({
              subresource: sub.name,
              responseKind: subresourceKind(type, sub),
              verbs: sorted(sub.verbs),
            })),
        }
      : {}),
  };
}

/** Upstream's `discovery.StorageVersionHash`: base64 of the first 8 bytes of sha256("group/version/kind"). */
/** Of the storage version: a view's is its stored type's (events.k8s.io/v1 events hash as v1 Event). */
function storageVersionHash(type: ResourceType): string {
  const stored = type.view?.of ?? type;
  const digest = createHash('sha256').update(`${stored.group}/${stored.version}/${stored.kind}`).digest();
  return digest.subarray(0, 8).toString('base64');
}

function nonEmpty<K extends string>(key: K, values: string[]): Partial<Record<K, string[]>> {
  return values.length > 0 ? ({ [key]: [...values] } as Record<K, string[]>) : {};
}
