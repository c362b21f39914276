/**
 * How lists and maps of each kind merge, from the upstream Go types' markers (`listType`,
 * `listMapKey`, `patchStrategy`, `patchMergeKey`, `structType`/`mapType`). Shared by the
 * strategic-merge patcher and the server-side-apply engine, so both agree on list identity.
 *
 * Paths are field names from the object root; a list item is written `[]`:
 * `spec.template.spec.containers[].env` is the env list of any container of a Deployment.
 * A list not described here is atomic (SSA) and replaced whole (strategic merge), as upstream
 * treats lists without markers.
 */

export interface MapList {
  type: 'map';
  /** Fields identifying an item (SSA `listMapKey`s). */
  keys: string[];
  /** Values a key takes when absent (Container/Service ports: protocol TCP). */
  keyDefaults?: Record<string, string>;
  /** Strategic merge: items merged by this field. */
  mergeKey: string;
  /** Strategic merge `retainKeys` (volumes). */
  retainKeys?: boolean;
}

export interface SetList {
  type: 'set';
}

export interface AtomicList {
  type: 'atomic';
}

export type ListType = MapList | SetList | AtomicList;

const ATOMIC: AtomicList = { type: 'atomic' };
const SET: SetList = { type: 'set' };
const byName: MapList = { type: 'map', keys: ['name'], mergeKey: 'name' };

/** Lists inside a PodSpec, relative to the spec. */
const POD_SPEC_LISTS: Record<string, ListType> = {
  containers: byName,
  initContainers: byName,
  ephemeralContainers: byName,
  'containers[].env': byName,
  'initContainers[].env': byName,
  'containers[].ports': {
    type: 'map',
    keys: ['containerPort', 'protocol'],
    keyDefaults: { protocol: 'TCP' },
    mergeKey: 'containerPort',
  },
  'initContainers[].ports': {
    type: 'map',
    keys: ['containerPort', 'protocol'],
    keyDefaults: { protocol: 'TCP' },
    mergeKey: 'containerPort',
  },
  'containers[].volumeMounts': { type: 'map', keys: ['mountPath'], mergeKey: 'mountPath' },
  'initContainers[].volumeMounts': { type: 'map', keys: ['mountPath'], mergeKey: 'mountPath' },
  'ephemeralContainers[].env': byName,
  'ephemeralContainers[].ports': {
    type: 'map',
    keys: ['containerPort', 'protocol'],
    keyDefaults: { protocol: 'TCP' },
    mergeKey: 'containerPort',
  },
  'ephemeralContainers[].volumeMounts': { type: 'map', keys: ['mountPath'], mergeKey: 'mountPath' },
  'containers[].volumeDevices': { type: 'map', keys: ['devicePath'], mergeKey: 'devicePath' },
  'initContainers[].volumeDevices': { type: 'map', keys: ['devicePath'], mergeKey: 'devicePath' },
  volumes: { type: 'map', keys: ['name'], mergeKey: 'name', retainKeys: true },
  imagePullSecrets: byName,
  hostAliases: { type: 'map', keys: ['ip'], mergeKey: 'ip' },
  topologySpreadConstraints: {
    type: 'map',
    keys: ['topologyKey', 'whenUnsatisfiable'],
    mergeKey: 'topologyKey',
  },
  schedulingGates: byName,
  resourceClaims: byName,
};

/** Where each kind keeps a PodSpec. */
const POD_SPEC_ROOTS: Record<string, string> = {
  Pod: 'spec',
  Deployment: 'spec.template.spec',
  ReplicaSet: 'spec.template.spec',
  Job: 'spec.template.spec',
  CronJob: 'spec.jobTemplate.spec.template.spec',
  StatefulSet: 'spec.template.spec',
  DaemonSet: 'spec.template.spec',
};

const CONDITIONS_BY_TYPE: MapList = { type: 'map', keys: ['type'], mergeKey: 'type' };

/** Lists outside PodSpecs, per kind ('*' for every kind). */
const KIND_LISTS: Record<string, Record<string, ListType>> = {
  '*': {
    'metadata.ownerReferences': { type: 'map', keys: ['uid'], mergeKey: 'uid' },
    'metadata.finalizers': SET,
  },
  Service: {
    'spec.ports': {
      type: 'map',
      keys: ['port', 'protocol'],
      keyDefaults: { protocol: 'TCP' },
      mergeKey: 'port',
    },
    'status.conditions': CONDITIONS_BY_TYPE,
  },
  ServiceAccount: {
    secrets: byName,
  },
  Deployment: { 'status.conditions': CONDITIONS_BY_TYPE },
  ReplicaSet: { 'status.conditions': CONDITIONS_BY_TYPE },
  Pod: { 'status.conditions': CONDITIONS_BY_TYPE },
  Namespace: { 'status.conditions': CONDITIONS_BY_TYPE },
  PersistentVolumeClaim: { 'status.conditions': CONDITIONS_BY_TYPE },
  StatefulSet: { 'status.conditions': CONDITIONS_BY_TYPE },
  DaemonSet: { 'status.conditions': CONDITIONS_BY_TYPE },
  Node: { 'status.conditions': CONDITIONS_BY_TYPE },
};

/**
 * Maps and structs server-side apply treats as one value (`structType`/`mapType=atomic`). Strategic
 * merge ignores these markers (it reads only patchStrategy tags) and merges them key by key.
 */
const ATOMIC_MAPS: Record<string, string[]> = {
  Deployment: ['spec.selector'],
  ReplicaSet: ['spec.selector'],
  Job: ['spec.selector'],
  Service: ['spec.selector'],
  StatefulSet: ['spec.selector'],
  DaemonSet: ['spec.selector'],
};

const ATOMIC_POD_SPEC_MAPS = ['nodeSelector'];

function podSpecRelative(kind: string, path: string): string | undefined {
  const root = POD_SPEC_ROOTS[kind];
  if (!root || !path.startsWith(`${root}.`)) return undefined;
  return path.slice(root.length + 1);
}

/** How the list at `path` (dot-joined, `[]` for items) of an object of `kind` merges. */
export function listTypeAt(kind: string, path: string[] | string): ListType {
  const joined = Array.isArray(path) ? joinPath(path) : path;
  const relative = podSpecRelative(kind, joined);
  if (relative !== undefined) return POD_SPEC_LISTS[relative] ?? ATOMIC;
  return KIND_LISTS[kind]?.[joined] ?? KIND_LISTS['*']?.[joined] ?? ATOMIC;
}

/** True when the map or struct at `path` is replaced whole rather than merged field by field. */
export function isAtomicMap(kind: string, path: string[] | string): boolean {
  const joined = Array.isArray(path) ? joinPath(path) : path;
  const relative = podSpecRelative(kind, joined);
  if (relative !== undefined) return ATOMIC_POD_SPEC_MAPS.includes(relative);
  return ATOMIC_MAPS[kind]?.includes(joined) ?? false;
}

/** `['spec', 'containers', '[]', 'env']` → `spec.containers[].env`. */
export function joinPath(path: string[]): string {
  return path.reduce((acc, part) => (part === '[]' ? `${acc}[]` : acc ? `${acc}.${part}` : part), '');
}

/** The identity of a map-list item: its key fields with defaults applied, in key order. */
export function itemKey(list: MapList, item: Record<string, unknown>): Record<string, unknown> {
  const key: Record<string, unknown> = {};
  for (const field of list.keys) key[field] = item[field] ?? list.keyDefaults?.[field];
  return key;
}
