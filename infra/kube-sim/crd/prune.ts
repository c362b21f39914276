/**
 * Pruning of fields a structural schema does not specify, as apiextensions-apiserver's
 * pkg/apiserver/schema/pruning/algorithm.go: objects keep only `properties` (or every key under
 * `additionalProperties`), nothing is pruned under `x-kubernetes-preserve-unknown-fields: true`,
 * and at the root and in `x-kubernetes-embedded-resource` objects apiVersion, kind and metadata
 * are always kept. The pruned paths are what `fieldValidation=Strict|Warn` reports
 * (`unknown field "spec.foo"`).
 */
import { isPlainObject } from '../types.ts';
import { type JSONSchemaProps, mapValueSchema } from './schema.ts';

const RESOURCE_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Removes unknown fields from `object` in place; returns their paths (`spec.triggers[0].foo`). */
export function pruneUnknownFields(object: Record<string, unknown>, schema: JSONSchemaProps): string[] {
  const pruned: string[] = [];
  pruneObject(object, schema, '', true, pruned);
  return pruned;
}

function pruneObject(
  value: Record<string, unknown>,
  schema: JSONSchemaProps,
  path: string,
  isResource: boolean,
  out: string[],
): void {
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const additional = mapValueSchema(schema);
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (isResource && RESOURCE_FIELDS.has(key)) continue;
    const childSchema = schema.properties?.[key] ?? additional;
    if (childSchema) {
      prune(child, childSchema, childPath, out);
      continue;
    }
    if (schema.additionalProperties === true || preserve) continue;
    delete value[key];
    out.push(childPath);
  }
}

function prune(value: unknown, schema: JSONSchemaProps, path: string, out: string[]): void {
  if (Array.isArray(value)) {
    if (schema.items)
      for (const [i, item] of value.entries()) prune(item, schema.items, `${path}[${i}]`, out);
    return;
  }
  if (!isPlainObject(value)) return;
  pruneObject(value, schema, path, schema['x-kubernetes-embedded-resource'] === true, out);
}
