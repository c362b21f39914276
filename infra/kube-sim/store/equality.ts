/**
 * "Did this write change anything?" A write whose result equals the stored object is not written:
 * no new resourceVersion, no watch event. Timestamps inside managedFields do not count as a change
 * (upstream drops managedFields-only time updates), nor does the resourceVersion itself.
 */
import { isPlainObject } from '../types.ts';

function equalValues(a: unknown, b: unknown, path: string): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    const itemPath = `${path}[]`;
    return a.every((v, i) => equalValues(v, b[i], itemPath));
  }
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const keysA = Object.keys(a).filter((k) => !ignored(path, k));
    const keysB = Object.keys(b).filter((k) => !ignored(path, k));
    if (keysA.length !== keysB.length) return false;
    return keysA.every((k) => Object.hasOwn(b, k) && equalValues(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return false;
}

function ignored(path: string, key: string): boolean {
  return (
    (path === 'metadata' && key === 'resourceVersion') ||
    (path === 'metadata.managedFields[]' && key === 'time')
  );
}

export function sameStoredContent(a: unknown, b: unknown): boolean {
  return equalValues(a, b, '');
}
