/**
 * Typed reads of the untyped JSON objects kube-sim stores. Missing values read as Go's zero values
 * (`""`, no items), which is what upstream validation sees after decoding into Go structs; values
 * of the wrong JSON type never get this far (decoding rejects them).
 */
import { isPlainObject } from '../types.ts';

export type JsonObject = Record<string, unknown>;

/** The object at `value`, or undefined (Go: a nil pointer to a struct). */
export function obj(value: unknown): JsonObject | undefined {
  return isPlainObject(value) ? value : undefined;
}

/** The object at `value`, or an empty one (Go: an embedded struct, never nil). */
export function objOrEmpty(value: unknown): JsonObject {
  return isPlainObject(value) ? value : {};
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A string field behind a pointer: undefined when absent. */
export function optStr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

export function bool(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** A map[string]string; entries of other types are dropped. */
export function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isPlainObject(value)) return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Set, i.e. not absent and not JSON null (Go: a non-nil pointer). */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** len() of a string in Go counts UTF-8 bytes. */
export function byteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}
