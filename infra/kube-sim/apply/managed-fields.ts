/**
 * `metadata.managedFields` as k8s.io/apimachinery/pkg/util/managedfields/internal keeps it
 * (managedfields.go, stripmeta.go, conflict.go, fieldmanager.go): entries decoded into
 * `manager identifier → versioned field set`, and encoded back in upstream's order.
 */
import { StatusError } from '../errors.ts';
import type { KubeObject, ManagedFieldsEntry } from '../types.ts';
import { isPlainObject } from '../types.ts';
import { compareStrings, FieldSet, field, goJson, goQuote, type Path, pathString } from './fieldset.ts';

export type Operation = 'Apply' | 'Update';

/** The parts of an entry that identify its manager. */
export interface ManagerInfo {
  manager: string;
  operation: Operation;
  /** Part of the identity for Update entries only: appliers keep one entry across versions. */
  apiVersion?: string;
  subresource?: string;
}

export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

/** Field sets and timestamps per manager identifier (`internal.ManagedInterface`). */
export interface Managed {
  fields: Map<string, VersionedSet>;
  /** A decoded entry without `time` maps to undefined; a manager that never got one is absent. */
  times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

export function copyManaged(m: Managed): Managed {
  return { fields: new Map(m.fields), times: new Map(m.times) };
}

/**
 * `BuildManagerIdentifier`: the entry's JSON without time, fields and fieldsType, and without
 * apiVersion for appliers, in ManagedFieldsEntry's field order. Conflict messages sort managers
 * by this string.
 */
export function managerIdentifier(info: ManagerInfo): string {
  const parts = [`"manager":${goJson(info.manager)}`, `"operation":${goJson(info.operation)}`];
  if (info.operation === 'Update' && info.apiVersion) parts.push(`"apiVersion":${goJson(info.apiVersion)}`);
  if (info.subresource) parts.push(`"subresource":${goJson(info.subresource)}`);
  return `{${parts.join(',')}}`;
}

export function parseManagerIdentifier(id: string): ManagerInfo {
  return JSON.parse(id) as ManagerInfo;
}

/** `printManager`: `"m"`, `"m" with subresource "status"`, `"m" using apps/v1` (Update entries). */
export function printManager(id: string): string {
  const info = parseManagerIdentifier(id);
  let out = goQuote(info.manager ?? '');
  if (info.subresource) out += ` with subresource ${goQuote(info.subresource)}`;
  // Identifiers never carry a time, so upstream's "at <time>" variant cannot occur.
  if (info.operation === 'Update') out += ` using ${info.apiVersion ?? ''}`;
  return out;
}

/**
 * Fields never tracked (stripmeta.go). Removed with a plain difference from the writing
 * manager's set only: `metadata` itself, not what is under it, and not deletionTimestamp,
 * labels, annotations, finalizers or ownerReferences.
 */
export const STRIPPED_FIELDS = FieldSet.of(
  [field('apiVersion')],
  [field('kind')],
  [field('metadata')],
  ...[
    'name',
    'namespace',
    'creationTimestamp',
    'selfLink',
    'uid',
    'clusterName',
    'generation',
    'managedFields',
    'resourceVersion',
  ].map((name): Path => [field('metadata'), field(name)]),
);

/** `isResetManagedFields`: `[]` or `[{}]` in a write asks for managedFields to be cleared. */
export function isResetManagedFields(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  if (value.length === 0) return true;
  return value.length === 1 && isPlainObject(value[0]) && Object.keys(value[0]).length === 0;
}

/** `DecodeManagedFields`; throws with upstream's messages on a malformed entry. */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  entries.forEach((raw: unknown, i) => {
    if (!isPlainObject(raw)) throw new Error(`invalid managed fields entry ${i}`);
    const operation = raw.operation;
    if (operation !== 'Apply' && operation !== 'Update')
      throw new Error('operation must be `Apply` or `Update`');
    const apiVersion = typeof raw.apiVersion === 'string' ? raw.apiVersion : '';
    if (apiVersion.length < 1) throw new Error('apiVersion must not be empty');
    if (raw.fieldsType === undefined || raw.fieldsType === '')
      throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (raw.fieldsType !== 'FieldsV1')
      throw new Error(`invalid fieldsType ${JSON.stringify(raw.fieldsType)} in managed fields entry ${i}`);
    const id = managerIdentifier({
      manager: typeof raw.manager === 'string' ? raw.manager : '',
      operation,
      apiVersion,
      subresource: typeof raw.subresource === 'string' ? raw.subresource : undefined,
    });
    let set: FieldSet;
    try {
      set =
        raw.fieldsV1 === undefined || raw.fieldsV1 === null
          ? FieldSet.EMPTY
          : FieldSet.fromFieldsV1(raw.fieldsV1);
    } catch (err) {
      throw new Error(
        `error decoding versioned set from entry ${i}: error decoding set: ${(err as Error).message}`,
      );
    }
    // Several entries with one identifier: the last wins (a Go map assignment).
    managed.fields.set(id, { set, apiVersion, applied: operation === 'Apply' });
    managed.times.set(id, typeof raw.time === 'string' ? raw.time : undefined);
  });
  return managed;
}

function unixSeconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/**
 * `encodeManagedFields`: one entry per manager, sorted by operation (Apply first), time (to the
 * second), manager, apiVersion, subresource. Undefined when nothing is managed (the field is
 * then absent). `fallbackTime` dates a manager that never got a time; upstream leaves `time` out
 * there, which ManagedFieldsEntry cannot express.
 */
export function encodeManagedFields(
  managed: Managed,
  fallbackTime: string,
): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const info = parseManagerIdentifier(id);
    const entry: Record<string, unknown> = {
      manager: info.manager,
      operation: vs.applied ? 'Apply' : 'Update',
      apiVersion: vs.apiVersion,
    };
    if (managed.times.has(id)) {
      const time = managed.times.get(id);
      // An entry that arrived without a time keeps none, as upstream re-encodes it.
      if (time !== undefined) entry.time = time;
    } else {
      entry.time = fallbackTime;
    }
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = vs.set.toFieldsV1();
    if (info.subresource) entry.subresource = info.subresource;
    // Only an entry that came in without `time` lacks one: the cast repeats what the input was.
    entries.push(entry as unknown as ManagedFieldsEntry);
  }
  return entries.sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    const ps = unixSeconds(p.time);
    const qs = unixSeconds(q.time);
    if (ps !== qs) return ps < qs ? -1 : 1;
    return (
      compareStrings(p.manager, q.manager) ||
      compareStrings(p.apiVersion, q.apiVersion) ||
      compareStrings(p.subresource ?? '', q.subresource ?? '')
    );
  });
}

/**
 * Sets `metadata.managedFields` (in place of the old value, keeping key order) or removes it
 * when nothing is managed; returns a new object.
 */
export function withManagedFields(obj: KubeObject, managed: Managed, fallbackTime: string): KubeObject {
  const entries = encodeManagedFields(managed, fallbackTime);
  if (entries) return { ...obj, metadata: { ...obj.metadata, managedFields: entries } };
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** One field the applier would take from another manager. */
export interface Conflict {
  manager: string;
  path: Path;
}

/** Thrown by the updater when an apply conflicts (`merge.Conflicts`). */
export class ConflictsError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super('conflicts');
    this.name = 'ConflictsError';
  }
}

/**
 * `NewConflictError`: 409 Conflict, one FieldManagerConflict cause per field, and
 * `Apply failed with 1 conflict: conflict with "m": .spec.replicas` or, for several,
 * `Apply failed with N conflicts: conflicts with "a":\n- .x\nconflicts with "b" using v1:\n- .y`
 * grouped by manager identifier order.
 */
export function conflictStatusError(conflicts: Conflict[]): StatusError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    message = `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  } else {
    const byManager = new Map<string, Path[]>();
    for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.path]);
    const lines: string[] = [];
    for (const manager of [...byManager.keys()].sort(compareStrings)) {
      lines.push(`conflicts with ${printManager(manager)}:`);
      for (const p of byManager.get(manager)!) lines.push(`- ${pathString(p)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, { causes });
}
