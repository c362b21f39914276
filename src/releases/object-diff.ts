/**
 * What a dry run shows of one object: the object as longshore renders it next to the live object
 * restricted to the fields longshore owns, as YAML, and a unified diff of the two (line-diff.ts).
 *
 * "Owned" is what server-side apply makes it: the fields longshore applies now and the fields it
 * applied last time (the stored object of the deployed revision). An apply sets the first and
 * removes those of the second it no longer sets; anything else on the live object (status,
 * defaults, server metadata, other managers' fields) is left alone, so it is not shown. Lists
 * follow drift.ts: items with a merge key (containers by name, ports by port…) are matched by it,
 * other lists are atomic (shown whole).
 *
 * Secret values are never shown, in clear or digested: a Secret's `data` is left out of the YAML
 * and reported per key as `added`, `changed` or `removed`, compared by their digests.
 */
import { stringify } from 'yaml';
import { sameQuantity } from '../../rules/quantities.ts';
import type { ReleaseObject } from '../storage/types.ts';
import { comparableForm, mergeKeyOf } from './drift.ts';
import { unifiedDiff } from './line-diff.ts';
import { REDACTED_FIELD, SEALED_FIELD, type ValueDigester } from './secret-values.ts';

export type ValueChange = 'added' | 'changed' | 'removed';

export interface ObjectDiff {
  /** Unified diff of the YAML (live owned fields → rendered); '' when they are the same. */
  diff: string;
  /** Secrets only: each key whose value the apply would add, change or remove. */
  values?: Record<string, ValueChange>;
}

/**
 * `desired` as rendered (Secret values in clear), `previous` as the deployed revision stores it
 * (Secret values as digests; undefined for an object new to the release), `live` from the cache.
 */
export function objectDiff(
  desired: ReleaseObject,
  previous: ReleaseObject | undefined,
  live: unknown,
  digester: ValueDigester,
): ObjectDiff {
  const after = comparableForm(desired);
  const templates = [after, ...(previous ? [storedShape(previous)] : [])];
  const projected = project(JSON.parse(JSON.stringify(live ?? {})), templates, after, '');
  // Identity is not compared (drift.ts does not either): objects from an informer's list carry
  // no apiVersion or kind, and the cache they came from matched them.
  const before = {
    ...(projected as Record<string, unknown>),
    apiVersion: after.apiVersion,
    kind: after.kind,
  };
  if (desired.kind !== 'Secret') return { diff: yamlDiff(before, after) };
  const values = secretValueChanges(desired.metadata.name, after, previous, live, digester);
  const { data: _a, ...afterShown } = after;
  const { data: _b, ...beforeShown } = (before ?? {}) as Record<string, unknown>;
  return { diff: yamlDiff(beforeShown, afterShown), values };
}

function yamlDiff(before: unknown, after: unknown): string {
  return unifiedDiff(toYaml(before), toYaml(after), { from: 'live', to: 'rendered' });
}

function toYaml(value: unknown): string {
  if (value === undefined || (isRecord(value) && Object.keys(value).length === 0)) return '';
  return stringify(value, { sortMapEntries: true, lineWidth: 0 });
}

/**
 * The stored object as a shape of the fields it applied: a Secret's digests stand for its `data`
 * keys (so removed keys count as owned), its sealed copies are not fields at all.
 */
function storedShape(stored: ReleaseObject): Record<string, unknown> {
  const {
    [REDACTED_FIELD]: digests,
    [SEALED_FIELD]: _sealed,
    ...rest
  } = stored as unknown as Record<string, unknown>;
  return isRecord(digests) ? { ...rest, data: digests } : rest;
}

/**
 * `live` restricted to the fields any template has. `desired` (the rendered object at this path)
 * supplies a leaf where the live value is the same quantity written otherwise (`0.5` and `500m`),
 * so the canonical form the server stores does not show as a change.
 */
function project(live: unknown, templates: unknown[], desired: unknown, path: string): unknown {
  if (live === undefined || live === null) return undefined;
  const maps = templates.filter(isRecord);
  if (maps.length > 0 && maps.length === templates.length) {
    if (!isRecord(live)) return live;
    const keys = new Set(maps.flatMap((t) => Object.keys(t)));
    const out: Record<string, unknown> = {};
    for (const key of [...keys].sort()) {
      const value = project(
        live[key],
        maps.filter((t) => key in t).map((t) => t[key]),
        isRecord(desired) ? desired[key] : undefined,
        path ? `${path}.${key}` : key,
      );
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
  const lists = templates.filter(Array.isArray) as unknown[][];
  const keyed =
    lists.length === templates.length &&
    lists.some((l) => l.length > 0) &&
    lists.every((l) => l.every((item) => mergeKeyOf(item) !== undefined));
  if (keyed && Array.isArray(live)) {
    const items = new Map<string, unknown[]>();
    for (const list of lists)
      for (const item of list) items.set(mergeKeyOf(item)!, [...(items.get(mergeKeyOf(item)!) ?? []), item]);
    const desiredByKey = new Map(
      (Array.isArray(desired) ? desired : []).map((item) => [mergeKeyOf(item), item] as const),
    );
    return live
      .filter((item) => items.has(mergeKeyOf(item) ?? ''))
      .map((item) => project(item, items.get(mergeKeyOf(item)!)!, desiredByKey.get(mergeKeyOf(item)), path));
  }
  if (
    desired !== undefined &&
    !isRecord(desired) &&
    !Array.isArray(desired) &&
    /(^|\.)(requests|limits|capacity|hard|resources)(\.|$)/.test(path) &&
    sameQuantity(desired, live)
  )
    return desired;
  return live;
}

/** Per key of a Secret, what the apply would do to its value (keys that stay the same are left out). */
function secretValueChanges(
  name: string,
  after: Record<string, unknown>,
  previous: ReleaseObject | undefined,
  live: unknown,
  digester: ValueDigester,
): Record<string, ValueChange> {
  const desiredData = (isRecord(after.data) ? after.data : {}) as Record<string, string>;
  const liveData = (isRecord(live) && isRecord(live.data) ? live.data : {}) as Record<string, string>;
  const stored = previous ? (previous as unknown as Record<string, unknown>)[REDACTED_FIELD] : undefined;
  // Keys a previous apply set: removing them from the render removes them live. Without a stored
  // revision (an object new to the release), every live key counts.
  const owned = isRecord(stored) ? new Set(Object.keys(stored)) : new Set(Object.keys(liveData));
  const changes: Record<string, ValueChange> = {};
  for (const key of Object.keys(desiredData).sort()) {
    const was = liveData[key];
    if (was === undefined) changes[key] = 'added';
    else if (digester.digest(name, key, was) !== digester.digest(name, key, desiredData[key]!))
      changes[key] = 'changed';
  }
  for (const key of Object.keys(liveData).sort())
    if (desiredData[key] === undefined && owned.has(key)) changes[key] = 'removed';
  return changes;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
