/**
 * Defaulting of custom resources from `default` in their structural schema, as
 * apiextensions-apiserver's pkg/apiserver/schema/defaulting/algorithm.go: a property absent from
 * an object that is present gets a copy of its default (nested defaults then apply inside it),
 * for properties, map values (`additionalProperties`) and array items alike. A `null` value is
 * defaulted too unless the property is nullable.
 */
import { clone, isPlainObject } from '../types.ts';
import { type JSONSchemaProps, mapValueSchema } from './schema.ts';

export function applySchemaDefaults(value: unknown, schema: JSONSchemaProps): void {
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) applySchemaDefaults(item, schema.items);
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    const absent = !(key in value) || (value[key] === null && child.nullable !== true);
    if (absent && child.default !== undefined) value[key] = clone(child.default);
    if (key in value) applySchemaDefaults(value[key], child);
  }
  const additional = mapValueSchema(schema);
  if (additional) {
    for (const [key, child] of Object.entries(value)) {
      if (schema.properties?.[key]) continue;
      applySchemaDefaults(child, additional);
    }
  }
}
