/**
 * Request bodies in `application/vnd.kubernetes.protobuf`, as typed client-go clients send them
 * (`kubectl create <kind>`, helm's release storage and its deletes, client-go leader election):
 *
 *     "k8s\0" + runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding, contentType}
 *
 * with `raw` the object's own message (k8s.io.api.core.v1.Secret, …). The result is the object
 * as the same client would have sent it in JSON (see to-json.ts), so everything after decoding
 * treats both alike. Errors follow apimachinery's protobuf serializer
 * (pkg/runtime/serializer/protobuf/protobuf.go) and the apiserver's transformDecodeError
 * (apiserver pkg/endpoints/handlers/rest.go); kinds outside kinds.ts get a 415 naming them.
 */
import { StatusError, statusErrors } from '../errors.ts';
import { decodedKinds, messageFor } from './kinds.ts';
import { messageType } from './schema.ts';
import { type Json, messageToJson } from './to-json.ts';

export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

/** protobuf.go's serializer prefix: 'k', '8', 's', 0. */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const UNKNOWN = 'k8s.io.apimachinery.pkg.runtime.Unknown';

interface UnknownEnvelope {
  typeMeta?: { apiVersion?: string; kind?: string };
  raw?: Uint8Array;
}

/** rest.go's summarizeData: the first 30 bytes, hex unless the body looks like JSON. */
function summarize(data: Buffer): string {
  if (data.length === 0) return '<empty>';
  const head = data.subarray(0, 30);
  const text = data[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return data.length > 30 ? `${text} ...` : text;
}

/**
 * The request cannot be decoded at all. Upstream says which type the endpoint wanted (`must be
 * of type Secret`); the decoder is not told the endpoint, so that part is left out.
 */
function unrecognized(detail: string, body: Buffer): StatusError {
  return statusErrors.badRequest(`the object provided is unrecognized: ${detail} (${summarize(body)})`);
}

/** gogo-protobuf's wording for what protobufjs reports as a RangeError or a bad wire type. */
function protoError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof RangeError || /index out of range/.test(message)) return 'unexpected EOF';
  const wireType = /invalid wire type (\d+)/.exec(message);
  if (wireType) return `proto: illegal wireType ${wireType[1]}`;
  return message;
}

function unsupportedKind(apiVersion: string, kind: string): StatusError {
  const what = `${kind} (${apiVersion || 'no apiVersion'})`;
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `kube-sim does not decode ${PROTOBUF_CONTENT_TYPE} bodies of kind ${what}; send it as ` +
      `application/json, or as protobuf one of: ${decodedKinds().join(', ')}`,
    { kind, causes: [{ reason: 'UnsupportedMediaType', message: PROTOBUF_CONTENT_TYPE }] },
  );
}

export function decodeProtobuf(body: Buffer): Json {
  if (body.length === 0) throw unrecognized('empty data', body);
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw unrecognized(
      `provided data does not appear to be a protobuf message, expected prefix [${[...MAGIC].join(' ')}]`,
      body,
    );
  }
  if (body.length === MAGIC.length) throw unrecognized('empty body', body);
  let envelope: UnknownEnvelope;
  try {
    envelope = messageType(UNKNOWN).decode(body.subarray(MAGIC.length)) as UnknownEnvelope;
  } catch (err) {
    throw unrecognized(protoError(err), body);
  }
  const apiVersion = envelope.typeMeta?.apiVersion ?? '';
  const kind = envelope.typeMeta?.kind ?? '';
  if (!kind || !apiVersion) {
    const missing = kind ? 'apiVersion' : 'Kind';
    const typeMeta = `runtime.TypeMeta{APIVersion:${JSON.stringify(apiVersion)}, Kind:${JSON.stringify(kind)}}`;
    throw unrecognized(`Object '${missing}' is missing in '${typeMeta}'`, body);
  }
  const name = messageFor(apiVersion, kind);
  if (!name) throw unsupportedKind(apiVersion, kind);
  const type = messageType(name);
  const version = apiVersion.split('/').pop();
  let fields: Record<string, unknown>;
  try {
    fields = type.decode(envelope.raw ?? new Uint8Array()) as unknown as Record<string, unknown>;
  } catch (err) {
    throw statusErrors.badRequest(
      `${kind} in version "${version}" cannot be handled as a ${kind}: ${protoError(err)}`,
    );
  }
  let object: Json;
  try {
    object = messageToJson(type, fields);
  } catch (err) {
    // managedFields whose FieldsV1 bytes are not JSON have no JSON form to hand on (upstream
    // refuses them too, when the field manager decodes them).
    throw statusErrors.badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${err}`);
  }
  // TypeMeta leads, as in Go's JSON (kind, then apiVersion).
  return { kind, apiVersion, ...(object as Record<string, Json>) };
}
