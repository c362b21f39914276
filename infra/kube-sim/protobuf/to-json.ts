/**
 * A decoded protobuf message → the JSON the apiserver would have had from the same Go object:
 * what `json.Marshal` prints for the struct gogo-protobuf unmarshals the bytes into.
 *
 * The Go encoder writes every value field (a Go non-pointer, `(gogoproto.nullable) = false`),
 * zero or not, and a pointer field only when set. So, field by field:
 * - pointer scalar: printed when on the wire, zero included (`replicas: 0`, `immutable: false`);
 * - value scalar: printed unless zero (`omitempty`), or always when its tag lacks `omitempty`;
 * - pointer struct: printed when on the wire; value struct: always printed (Go's omitempty
 *   never drops a struct: `status: {}`, `resources: {}`, `creationTimestamp: null`);
 * - lists and maps: printed when not empty (nil and empty are the same on the wire);
 * - embedded structs marked inline: their fields printed in the parent's place.
 * Types with their own JSON (apimachinery meta/v1 Time, MicroTime, FieldsV1; api/resource
 * Quantity; util/intstr IntOrString) are converted as their MarshalJSON does.
 */
import type protobuf from 'protobufjs';
import { fieldOption, OPTION } from './schema.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

type Fields = Record<string, unknown>;

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
/** Go's zero time.Time (0001-01-01T00:00:00Z) in Unix seconds: Time.MarshalJSON prints null. */
const GO_ZERO_TIME_SECONDS = -62135596800;

/** int64 fields decode as Long objects (protobufjs with the `long` package). */
function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'object' && value !== null && 'toNumber' in value) {
    return (value as { toNumber(): number }).toNumber();
  }
  return Number(value);
}

function has(message: Fields | undefined, name: string): boolean {
  return message !== undefined && Object.hasOwn(message, name);
}

/**
 * metav1.Time: empty bytes are the zero time (null); otherwise seconds only, as Time.Unmarshal
 * drops nanos (apimachinery pkg/apis/meta/v1/time_proto.go). JSON: RFC 3339 in UTC.
 */
function time(message: Fields | undefined): Json {
  if (!has(message, 'seconds') && !has(message, 'nanos')) return null;
  const seconds = toNumber(message!.seconds ?? 0);
  if (seconds === GO_ZERO_TIME_SECONDS) return null;
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** metav1.MicroTime keeps nanos; JSON is RFC3339Micro (`…T15:04:05.000000Z`, micro_time.go). */
function microTime(message: Fields | undefined): Json {
  if (!has(message, 'seconds') && !has(message, 'nanos')) return null;
  const seconds = toNumber(message!.seconds ?? 0);
  const nanos = toNumber(message!.nanos ?? 0);
  if (seconds === GO_ZERO_TIME_SECONDS && nanos === 0) return null;
  const whole = new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '');
  return `${whole}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

/** metav1.FieldsV1 {Raw}: its JSON is the raw bytes themselves (null when empty). */
function fieldsV1(message: Fields | undefined): Json {
  const raw = message?.Raw as Uint8Array | undefined;
  if (!raw || raw.length === 0) return null;
  return JSON.parse(Buffer.from(raw).toString('utf8')) as Json;
}

/**
 * runtime.RawExtension {raw} (a ControllerRevision's data): MarshalJSON writes the raw JSON bytes
 * as they are, `null` when there are none.
 */
function rawExtension(message: Fields | undefined): Json {
  const raw = message?.raw as Uint8Array | undefined;
  if (!raw || raw.length === 0) return null;
  return JSON.parse(Buffer.from(raw).toString('utf8')) as Json;
}

/** resource.Quantity {string}; the zero Quantity prints "0". */
function quantity(message: Fields | undefined): Json {
  return has(message, 'string') ? String(message!.string) : '0';
}

/** intstr.IntOrString {type, intVal, strVal}: type 1 is a string, anything else the int. */
function intOrString(message: Fields | undefined): Json {
  if (toNumber(message?.type ?? 0) === 1) return String(message?.strVal ?? '');
  return toNumber(message?.intVal ?? 0);
}

const CUSTOM_JSON: Record<string, (message: Fields | undefined) => Json> = {
  [`${META}.Time`]: time,
  [`${META}.MicroTime`]: microTime,
  [`${META}.FieldsV1`]: fieldsV1,
  'k8s.io.apimachinery.pkg.api.resource.Quantity': quantity,
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': intOrString,
  'k8s.io.apimachinery.pkg.runtime.RawExtension': rawExtension,
};

function scalar(type: string, value: unknown): Json {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (type.endsWith('int64') || type.endsWith('fixed64')) return toNumber(value);
  return value as Json;
}

function isZero(value: Json): boolean {
  return value === '' || value === 0 || value === false;
}

/** The message type a field holds; undefined for scalars (Kubernetes' protos declare no enums). */
function messageOf(field: protobuf.Field): protobuf.Type | undefined {
  const type = field.resolvedType;
  return type && 'fieldsArray' in type ? (type as protobuf.Type) : undefined;
}

/** One element of a list or a map value. */
function element(field: protobuf.Field, value: unknown): Json {
  const type = messageOf(field);
  return type ? messageToJson(type, value as Fields) : scalar(field.type, value);
}

/** The JSON of one field, or undefined when Go's JSON leaves it out. */
function fieldJson(field: protobuf.Field, message: Fields | undefined): Json | undefined {
  const value = message?.[field.name];
  if (field.map) {
    const entries = Object.entries((value ?? {}) as Fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (entries.length === 0) return undefined;
    return Object.fromEntries(entries.map(([k, v]) => [k, element(field, v)]));
  }
  if (field.repeated) {
    const items = (value ?? []) as unknown[];
    return items.length === 0 ? undefined : items.map((item) => element(field, item));
  }
  const present = has(message, field.name);
  const pointer = fieldOption(field, OPTION.nullable) !== false;
  if (pointer && !present) return undefined;
  const type = messageOf(field);
  if (type) return messageToJson(type, present ? (value as Fields) : undefined);
  if (pointer) return scalar(field.type, value);
  const json = scalar(field.type, present ? value : field.typeDefault);
  const omitempty = fieldOption(field, OPTION.omitempty) !== false;
  return omitempty && isZero(json) ? undefined : json;
}

function writeFields(type: protobuf.Type, message: Fields | undefined, out: Record<string, Json>): void {
  for (const field of type.fieldsArray) {
    if (fieldOption(field, OPTION.inline) === true) {
      const inner = has(message, field.name) ? (message![field.name] as Fields) : undefined;
      writeFields(messageOf(field)!, inner, out);
      continue;
    }
    const json = fieldJson(field, message);
    if (json !== undefined) out[field.name] = json;
  }
}

/** The JSON of a message; `undefined` stands for the Go zero value of its struct. */
export function messageToJson(type: protobuf.Type, message: Fields | undefined): Json {
  const custom = CUSTOM_JSON[type.fullName.slice(1)];
  if (custom) return custom(message);
  const out: Record<string, Json> = {};
  writeFields(type, message, out);
  return out;
}
