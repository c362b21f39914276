/**
 * Leaked `imagePullSecrets` (dokku#8531): server-side apply merges that list by name, so entries
 * another field manager added (an old dokku, `kubectl patch`) survive every apply, and a Pod that
 * names a Secret that does not exist cannot pull from a registry that needs it. A release owns the
 * pull secrets of its pod templates exactly: an entry outside the applied list, or a name listed
 * twice, is drift.
 *
 * The cure keeps the deploy to one template change: before the apply, one metadata-only write
 * moves the ownership of the leaked entries (in `metadata.managedFields`) from whichever managers
 * hold them to longshore's Apply entry. The apply that follows no longer lists them, and server-side
 * apply removes fields their applier stopped applying when no other manager owns them — in the
 * same write as the change, so the rollout's one new ReplicaSet never names them.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReleaseObject } from '../storage/types.ts';

/** Where a kind keeps its pod template's spec. */
function podSpecPath(kind: string): string[] | undefined {
  switch (kind) {
    case 'Deployment':
    case 'ReplicaSet':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'Job':
      return ['spec', 'template', 'spec'];
    case 'CronJob':
      return ['spec', 'jobTemplate', 'spec', 'template', 'spec'];
    default:
      return undefined;
  }
}

export function hasPodTemplate(kind: string): boolean {
  return podSpecPath(kind) !== undefined;
}

export interface PullSecretLeak {
  /** Path of the pod spec (`spec.template.spec`). */
  path: string[];
  /** Names the live list holds that the applied one does not, in live order. */
  leaked: string[];
  /** Names the live list repeats (intended ones included). */
  repeated: string[];
  /** The live list, as it is. */
  live: string[];
}

/** What the live object's pod template lists beyond what `desired` applies, or undefined. */
export function findPullSecretLeak(desired: ReleaseObject, live: unknown): PullSecretLeak | undefined {
  const path = podSpecPath(desired.kind);
  if (!path) return undefined;
  const liveNames = namesAt(live, path);
  if (liveNames.length === 0) return undefined;
  const intended = new Set(namesAt(desired, path));
  const leaked = [...new Set(liveNames.filter((n) => !intended.has(n)))];
  const repeated = [...new Set(liveNames.filter((n, i) => liveNames.indexOf(n) !== i))];
  if (leaked.length === 0 && repeated.length === 0) return undefined;
  return { path, leaked, repeated, live: liveNames };
}

export function describeLeak(leak: PullSecretLeak): string {
  const parts = [
    ...(leak.leaked.length ? [`not applied by longshore: ${leak.leaked.join(', ')}`] : []),
    ...(leak.repeated.length ? [`listed twice: ${leak.repeated.join(', ')}`] : []),
  ];
  return `${[...leak.path, 'imagePullSecrets'].join('.')} (${parts.join('; ')})`;
}

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/**
 * The live object's managedFields with the leaked entries' ownership moved to `manager`'s Apply
 * entry (created when it has none), so that its next apply, which does not list them, removes them.
 * Undefined when there is nothing to move (no leaked name: only repeats, which the apply of the
 * intended item replaces).
 */
export function transferLeakOwnership(
  live: KubernetesObject,
  leak: PullSecretLeak,
  manager: string,
  apiVersion: string,
): ManagedFieldsEntry[] | undefined {
  if (leak.leaked.length === 0) return undefined;
  const fieldPath = [...leak.path.map((p) => `f:${p}`), 'f:imagePullSecrets'];
  const keys = leak.leaked.map((name) => `k:${JSON.stringify({ name })}`);
  const entries = structuredClone((live.metadata?.managedFields ?? []) as ManagedFieldsEntry[]);
  for (const entry of entries) {
    if (!entry.fieldsV1) continue;
    const list = mapAt(entry.fieldsV1, fieldPath, false);
    if (!list) continue;
    for (const key of keys) delete list[key];
    pruneEmpty(entry.fieldsV1, fieldPath);
  }
  let own = entries.find((e) => e.manager === manager && e.operation === 'Apply' && !e.subresource);
  if (!own) {
    own = { manager, operation: 'Apply', apiVersion, time: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
    entries.push(own);
  }
  own.fieldsType = 'FieldsV1';
  own.fieldsV1 ??= {};
  const list = mapAt(own.fieldsV1, fieldPath, true)!;
  for (const key of keys) list[key] = { '.': {}, 'f:name': {} };
  return entries.filter((e) => e === own || (e.fieldsV1 && Object.keys(e.fieldsV1).length > 0));
}

function namesAt(object: unknown, path: string[]): string[] {
  let node: unknown = object;
  for (const key of path) node = isRecord(node) ? node[key] : undefined;
  const list = isRecord(node) ? node.imagePullSecrets : undefined;
  if (!Array.isArray(list)) return [];
  return list.map((s) => (isRecord(s) && typeof s.name === 'string' ? s.name : '')).filter((n) => n !== '');
}

function mapAt(root: Record<string, unknown>, path: string[], create: boolean) {
  let node = root;
  for (const key of path) {
    let next = node[key];
    if (!isRecord(next)) {
      if (!create) return undefined;
      next = {};
      node[key] = next;
    }
    node = next as Record<string, unknown>;
  }
  return node;
}

/** Removes the maps along `path` that the removal left empty, deepest first. */
function pruneEmpty(root: Record<string, unknown>, path: string[]): void {
  for (let depth = path.length; depth > 0; depth--) {
    const parent = mapAt(root, path.slice(0, depth - 1), false);
    const key = path[depth - 1]!;
    const child = parent?.[key];
    if (!parent || !isRecord(child) || Object.keys(child).length > 0) return;
    delete parent[key];
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
