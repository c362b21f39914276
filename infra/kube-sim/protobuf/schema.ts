/**
 * The protobuf schema kube-sim decodes: upstream's messages (schema/*.ts, written by
 * generate-schema.ts), parsed once into one protobufjs root on first use.
 */
import protobuf from 'protobufjs';
import { PROTO_SOURCES } from './schema/index.ts';

/** Field options the schema carries (see generate-schema.ts). */
export const OPTION = {
  /** go-to-protobuf's: false on a Go value field, which the Go encoder always writes. */
  nullable: '(gogoproto.nullable)',
  /** kube-sim's: false on a value scalar whose Go JSON tag has no `omitempty`. */
  omitempty: '(kubesim.json_omitempty)',
  /** kube-sim's: true on an embedded struct whose fields Go's JSON inlines in the parent. */
  inline: '(kubesim.json_inline)',
} as const;

let root: protobuf.Root | undefined;

function schemaRoot(): protobuf.Root {
  if (!root) {
    const parsed = new protobuf.Root();
    // keepCase: the field names are the JSON names (`volumeID`, FieldsV1's `Raw`), keep them as is.
    for (const source of PROTO_SOURCES) protobuf.parse(source, parsed, { keepCase: true });
    parsed.resolveAll();
    root = parsed;
  }
  return root;
}

/** A message type by its full name (`k8s.io.api.core.v1.Secret`). */
export function messageType(fullName: string): protobuf.Type {
  return schemaRoot().lookupType(fullName);
}

export function fieldOption(field: protobuf.Field, option: string): unknown {
  return field.options?.[option];
}
