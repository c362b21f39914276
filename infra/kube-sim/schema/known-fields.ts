/**
 * Which fields a kind declares, for `fieldValidation=Strict|Warn|Ignore`: upstream decodes request
 * bodies into typed structs, so unknown fields are dropped (and reported with Strict or Warn).
 * The schema comes from @kubernetes/client-node's generated models (`attributeTypeMap` per type),
 * i.e. the OpenAPI of the Kubernetes version that client targets.
 */
import * as models from '@kubernetes/client-node';
import { isPlainObject } from '../types.ts';
import { modelFor } from './go-types.ts';

interface Attribute {
  baseName: string;
  type: string;
}

type ModelClass = { attributeTypeMap?: Attribute[] };

const registry = models as unknown as Record<string, ModelClass | undefined>;

function attributes(typeName: string): Attribute[] | undefined {
  return registry[typeName]?.attributeTypeMap;
}

/** Unknown field paths (`spec.template.spec.containers[0].imagePullPolicyy`) in `value` of model `typeName`. */
function walk(value: unknown, typeName: string, path: string, out: string[]): void {
  const array = /^Array<(.+)>$/.exec(typeName);
  if (array) {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) walk(item, array[1]!, `${path}[${i}]`, out);
    }
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(typeName);
  if (map) {
    if (isPlainObject(value))
      for (const [k, v] of Object.entries(value)) walk(v, map[1]!, `${path}[${k}]`, out);
    return;
  }
  const attrs = attributes(typeName);
  // Primitive, free-form (`object`, RawExtension) or a type this client does not model: accept it.
  if (!attrs || !isPlainObject(value)) return;
  const known = new Map(attrs.map((a) => [a.baseName, a.type]));
  for (const [key, child] of Object.entries(value)) {
    const childType = known.get(key);
    const childPath = path ? `${path}.${key}` : key;
    if (childType === undefined) out.push(childPath);
    else walk(child, childType, childPath, out);
  }
}

/**
 * Unknown field paths of an object of `type`. The model is found by group as well as kind
 * (go-types.ts modelFor), so kinds two groups share (core/v1 and events.k8s.io/v1 Event, modelled
 * as CoreV1Event and EventsV1Event) are checked against their own group's fields.
 */
export function unknownFields(
  type: { group: string; version: string; kind: string },
  object: unknown,
): string[] {
  const out: string[] = [];
  const model = modelFor(type);
  if (model && attributes(model)) walk(object, model, '', out);
  return out;
}

/** Removes the fields `unknownFields` reported (what decoding into a typed struct does). */
export function dropFields(object: Record<string, unknown>, paths: string[]): void {
  for (const path of paths) {
    const parts = path.match(/[^.[\]]+/g) ?? [];
    let node: unknown = object;
    for (const part of parts.slice(0, -1)) {
      node = Array.isArray(node) ? node[Number(part)] : isPlainObject(node) ? node[part] : undefined;
    }
    const last = parts.at(-1);
    if (last !== undefined && isPlainObject(node)) delete node[last];
  }
}
