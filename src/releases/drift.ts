/**
 * Drift: does a live object still hold every field longshore applied? Live objects carry much
 * more than was applied (defaults, status, server metadata, other managers' fields), so only the
 * applied fields are compared, the way server-side apply sees ownership:
 * - maps: each applied key must be there with an equal value; extra live keys are not drift;
 * - lists of objects with a merge key (containers by name, volumeMounts by mountPath, ports by
 *   port and protocol…): each applied item must match the live item with the same key, wherever
 *   it sits; items other managers added are not drift;
 * - other lists (args, tolerations, ingress rules…) are atomic: equal length and items in order;
 * - resource quantities compare by value (`0.5` and `500m`), as the API server canonicalises them;
 * - a Secret's `stringData` is compared as the base64 `data` the server folds it into.
 */
import { sameQuantity } from '../../rules/quantities.ts';
import type { ReleaseObject } from '../storage/types.ts';

/** The path of the first applied field whose live value differs (`spec.template…image`), or undefined. */
export function findDrift(desired: ReleaseObject, live: unknown): string | undefined {
  if (live === undefined || live === null) return '(missing)';
  const normalizedLive = JSON.parse(JSON.stringify(live)) as unknown;
  if (
    isRecord(normalizedLive) &&
    isRecord(normalizedLive.metadata) &&
    normalizedLive.metadata.deletionTimestamp
  )
    return '(being deleted)';
  // Identity is not compared: the cache it came from matched it, and list items carry no kind.
  const { apiVersion: _v, kind: _k, ...fields } = comparableForm(desired);
  return difference(fields, normalizedLive, '');
}

/** What the server stores for an applied object, where it differs from what was sent. */
export function comparableForm(object: ReleaseObject): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(object)) as Record<string, unknown>;
  if (copy.kind === 'Secret' && isRecord(copy.stringData)) {
    const data: Record<string, unknown> = isRecord(copy.data) ? { ...copy.data } : {};
    for (const [k, v] of Object.entries(copy.stringData)) data[k] = Buffer.from(String(v)).toString('base64');
    copy.data = data;
    delete copy.stringData;
  }
  return copy;
}

function difference(desired: unknown, live: unknown, path: string): string | undefined {
  if (desired === undefined) return undefined;
  if (desired === null) return live === null || live === undefined ? undefined : path || '.';
  if (Array.isArray(desired)) return listDifference(desired, live, path);
  if (isRecord(desired)) {
    if (live === undefined || live === null) return Object.keys(desired).length === 0 ? undefined : path;
    if (!isRecord(live)) return path;
    for (const [key, value] of Object.entries(desired)) {
      const found = difference(value, live[key], join(path, key));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (desired === live) return undefined;
  if (isQuantityPath(path) && sameQuantity(desired, live)) return undefined;
  return path;
}

function listDifference(desired: unknown[], live: unknown, path: string): string | undefined {
  if (live === undefined || live === null) return desired.length === 0 ? undefined : path;
  if (!Array.isArray(live)) return path;
  // By merge key only when it tells the items apart: a list whose items share it (a KEDA
  // TriggerAuthentication's secretTargetRef entries all `name` one Secret) is an atomic list,
  // compared by position, as server-side apply treats a list without list-map keys.
  const keys = desired.map(mergeKeyOf);
  const keyed =
    desired.length > 0 && keys.every((k) => k !== undefined) && new Set(keys).size === keys.length;
  if (keyed) {
    const byKey = new Map<string, unknown>();
    for (const item of live) {
      const key = mergeKeyOf(item);
      if (key !== undefined) byKey.set(key, item);
    }
    for (const item of desired) {
      const key = mergeKeyOf(item)!;
      const found = difference(item, byKey.get(key), `${path}[${key}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (desired.length !== live.length) return path;
  for (let i = 0; i < desired.length; i++) {
    const found = difference(desired[i], live[i], `${path}[${i}]`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The merge key of a list item, from the fields Kubernetes' list-map keys use (most specific
 * first: a volumeMount has a `name` too, but two mounts of one volume differ by mountPath).
 */
export function mergeKeyOf(item: unknown): string | undefined {
  if (!isRecord(item)) return undefined;
  if (typeof item.mountPath === 'string') return `mountPath=${item.mountPath}`;
  if (typeof item.devicePath === 'string') return `devicePath=${item.devicePath}`;
  if (typeof item.containerPort === 'number')
    return `containerPort=${item.containerPort}/${String(item.protocol ?? 'TCP')}`;
  if (typeof item.port === 'number') return `port=${item.port}/${String(item.protocol ?? 'TCP')}`;
  if (typeof item.name === 'string') return `name=${item.name}`;
  if (typeof item.ip === 'string') return `ip=${item.ip}`;
  if (typeof item.uid === 'string') return `uid=${item.uid}`;
  return undefined;
}

const QUANTITY_PARENTS = /(^|\.)(requests|limits|capacity|hard|resources)(\.|$)/;

function isQuantityPath(path: string): boolean {
  return QUANTITY_PARENTS.test(path);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
