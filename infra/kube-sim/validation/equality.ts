/**
 * apiequality.Semantic.DeepEqual for JSON values, and a rendering of differences for the
 * "…is immutable…\n<diff>" Forbidden messages.
 */
import { isPlainObject } from '../types.ts';

/** Absent, null, [] and {} are all "empty": the forked reflect.DeepEqual treats nil and empty alike. */
function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).every((k) => isEmpty(value[k]));
}

/** Semantic.DeepEqual: empty slices/maps equal nil ones; absent fields equal null ones. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => semanticEqual(item, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return a === b;
}

/** Go field name of a JSON field: the Go struct field is the JSON name capitalized (mostly). */
function goName(jsonName: string): string {
  return jsonName.charAt(0).toUpperCase() + jsonName.slice(1);
}

/**
 * A short stand-in for upstream's cmp.Diff output. cmp deliberately randomizes its whitespace so
 * its text is never stable; clients match the sentence before the newline, which is exact.
 */
export function describeDiff(typeName: string, oldValue: unknown, newValue: unknown): string {
  const lines = [`  ${typeName}{`];
  const a = isPlainObject(oldValue) ? oldValue : {};
  const b = isPlainObject(newValue) ? newValue : {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (semanticEqual(a[k], b[k])) continue;
    if (!isEmpty(a[k])) lines.push(`- \t${goName(k)}: ${JSON.stringify(a[k])},`);
    if (!isEmpty(b[k])) lines.push(`+ \t${goName(k)}: ${JSON.stringify(b[k])},`);
  }
  lines.push('  }');
  return lines.join('\n');
}
