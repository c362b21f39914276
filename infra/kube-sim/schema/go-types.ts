/**
 * The Go types behind a kind's JSON, as k8s.io/api declares them, for decoding the way the
 * apiserver does (strict-decode.ts). The shape comes from @kubernetes/client-node's generated
 * models (`attributeTypeMap`: JSON name, TypeScript type and the OpenAPI `format`: int32, int64,
 * byte, date-time, int-or-string), so every kind client-node models is covered, including kinds
 * added later. What the models cannot tell, that a `string` is a resource.Quantity, comes from
 * upstream's protobuf schema (protobuf/schema/*.ts, generated from k8s.io/api's generated.proto),
 * with a short list for structs kube-sim has no .proto text for.
 */
import * as models from '@kubernetes/client-node';
import type protobuf from 'protobufjs';
import { messageType } from '../protobuf/schema.ts';

export type GoType =
  | { kind: 'scalar'; go: 'string' | 'int32' | 'int64' | 'bool' | 'float64' }
  /** []byte: base64 text in JSON. */
  | { kind: 'bytes' }
  | { kind: 'quantity' }
  | { kind: 'intstr' }
  | { kind: 'time'; micro: boolean }
  /** Free-form (runtime.RawExtension, JSON): anything decodes. */
  | { kind: 'any' }
  | { kind: 'array'; item: GoType }
  | { kind: 'map'; value: GoType }
  | { kind: 'struct'; model: string; name: string; pkg: string };

export interface GoField {
  json: string;
  type: GoType;
}

interface Attribute {
  baseName: string;
  type: string;
  format?: string;
}

const registry = models as unknown as Record<string, { attributeTypeMap?: Attribute[] } | undefined>;

/**
 * Quantity fields of structs whose messages the .proto texts do not carry (resource.Quantity in
 * k8s.io/api core/v1 NodeStatus, ResourceQuota, LimitRange; autoscaling/v2 MetricTarget).
 */
const EXTRA_QUANTITY_FIELDS: Record<string, string[]> = {
  NodeStatus: ['capacity', 'allocatable'],
  ResourceQuotaSpec: ['hard'],
  ResourceQuotaStatus: ['hard', 'used'],
  LimitRangeItem: ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'],
  MetricTarget: ['value', 'averageValue'],
  MetricValueStatus: ['value', 'averageValue'],
};

/** `V1DeploymentSpec` → package `v1`, struct `DeploymentSpec`; `CoreV1Event` → `v1`, `Event`. */
export function goStructName(model: string): { pkg: string; name: string } {
  const m = /^(?:[A-Z][a-z]+)*?(V\d+(?:alpha\d+|beta\d+)?)([A-Z].*)$/.exec(model);
  if (!m) return { pkg: 'v1', name: model };
  return { pkg: m[1]!.toLowerCase(), name: m[2]! };
}

/**
 * The client-node model of a kind: `V1Deployment`, `V2HorizontalPodAutoscaler`, or, where several
 * groups share a kind name, the group-prefixed one (`CoreV1Event`, `EventsV1Event`). Undefined
 * when client-node does not model it (the object then decodes as sent).
 */
export function modelFor(type: { group: string; version: string; kind: string }): string | undefined {
  const version = type.version.charAt(0).toUpperCase() + type.version.slice(1);
  const group = type.group ? type.group.split('.')[0]! : 'core';
  const prefix = group.charAt(0).toUpperCase() + group.slice(1);
  return [`${version}${type.kind}`, `${prefix}${version}${type.kind}`].find(
    (name) => registry[name]?.attributeTypeMap,
  );
}

let messagesByName: Map<string, protobuf.Type> | undefined;

/** Every message of the .proto texts by its short name (the Go struct's name). */
function messages(): Map<string, protobuf.Type> {
  if (!messagesByName) {
    messagesByName = new Map();
    const visit = (ns: protobuf.NamespaceBase) => {
      for (const nested of ns.nestedArray) {
        if ((nested as protobuf.Type).fieldsArray !== undefined && !messagesByName!.has(nested.name))
          messagesByName!.set(nested.name, nested as protobuf.Type);
        if ((nested as protobuf.NamespaceBase).nestedArray) visit(nested as protobuf.NamespaceBase);
      }
    };
    visit(messageType('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta').root);
  }
  return messagesByName;
}

function isQuantityField(struct: string, json: string): boolean {
  if (EXTRA_QUANTITY_FIELDS[struct]?.includes(json)) return true;
  const field = messages().get(struct)?.fields[json];
  if (!field) return false;
  return field.type.endsWith('resource.Quantity') || field.type === 'Quantity';
}

/** The Go type of a model attribute's TypeScript type and format. */
function typeOf(type: string, format: string, quantity: boolean): GoType {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return { kind: 'array', item: typeOf(array[1]!, format, quantity) };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return { kind: 'map', value: typeOf(map[1]!, format, quantity) };
  switch (type) {
    case 'string':
      if (quantity) return { kind: 'quantity' };
      return format === 'byte' ? { kind: 'bytes' } : { kind: 'scalar', go: 'string' };
    case 'number':
      if (format === 'int32' || format === 'int64') return { kind: 'scalar', go: format };
      return { kind: 'scalar', go: 'float64' };
    case 'boolean':
      return { kind: 'scalar', go: 'bool' };
    case 'Date':
      return { kind: 'time', micro: format === 'date-time-micro' };
    case 'IntOrString':
      return { kind: 'intstr' };
    default: {
      if (!registry[type]?.attributeTypeMap) return { kind: 'any' };
      return { kind: 'struct', model: type, ...goStructName(type) };
    }
  }
}

const fieldCache = new Map<string, GoField[] | undefined>();

/** The fields of a model (`V1DeploymentSpec`), or undefined when client-node does not model it. */
export function structFields(model: string): GoField[] | undefined {
  if (fieldCache.has(model)) return fieldCache.get(model);
  const attrs = registry[model]?.attributeTypeMap;
  const { name } = goStructName(model);
  const fields = attrs?.map((a) => ({
    json: a.baseName,
    type: typeOf(a.type, a.format ?? '', isQuantityField(name, a.baseName)),
  }));
  fieldCache.set(model, fields);
  return fields;
}

/** reflect.Type.String() of a Go type, as json's UnmarshalTypeError prints it. */
export function goTypeName(t: GoType): string {
  switch (t.kind) {
    case 'scalar':
      return t.go;
    case 'bytes':
      return '[]uint8';
    case 'quantity':
      return 'resource.Quantity';
    case 'intstr':
      return 'intstr.IntOrString';
    case 'time':
      return t.micro ? 'v1.MicroTime' : 'v1.Time';
    case 'any':
      return 'interface {}';
    case 'array':
      return `[]${goTypeName(t.item)}`;
    case 'map':
      // Every map of quantities in k8s.io/api is a named v1.ResourceList.
      return t.value.kind === 'quantity' ? 'v1.ResourceList' : `map[string]${goTypeName(t.value)}`;
    case 'struct':
      return `${t.pkg}.${t.name}`;
  }
}
