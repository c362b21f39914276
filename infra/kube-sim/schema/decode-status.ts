/**
 * How the apiserver answers an object that does not decode into its Go type, which depends on
 * where the object came from (apiserver pkg/endpoints/handlers):
 *
 * - a request body (create, update, apply, subresource writes): the serializer's error through
 *   transformDecodeError, a 400 `Deployment in version "v1" cannot be handled as a Deployment: …`;
 * - a JSON or merge patch's result (patch.go, jsonPatcher.applyPatchToCurrentObject): 422
 *   Invalid on field `patch`, the value the patched object's JSON;
 * - a strategic merge patch's result (patch.go, applyPatchToObject): decoded by the unstructured
 *   converter, 422 Invalid on `patch` with the patch printed as Go's `%+v` prints a map.
 */
import { type FieldError, fieldErrorBody, fieldErrorText, StatusError, statusErrors } from '../errors.ts';
import { modelFor } from './go-types.ts';
import { decodeTyped, GoDecodeError } from './strict-decode.ts';

export type DecodeSource =
  /** numberLiterals: the body's respelled number literals (number-literals.ts). */
  | { from: 'body'; numberLiterals?: Map<string, string> | undefined }
  | { from: 'patch'; patchType: 'json' | 'merge' | 'strategic'; patch: unknown };

/** fmt's `%+v` of a decoded JSON value: `map[spec:map[replicas:x]]`, keys sorted. */
export function goFormat(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `map[${entries.map(([k, v]) => `${k}:${goFormat(v)}`).join(' ')}]`;
  }
  if (typeof value === 'number') return goFloat(value);
  return String(value);
}

/** %v of a float64: shortest digits, exponent form below 1e-4 and from 1e21, two exponent digits. */
function goFloat(n: number): string {
  const abs = Math.abs(n);
  const text = abs !== 0 && (abs < 1e-4 || abs >= 1e21) ? n.toExponential() : String(n);
  return text.replace(
    /e([+-])(\d+)$/,
    (_m, sign: string, digits: string) => `e${sign}${digits.padStart(2, '0')}`,
  );
}

/** NewInvalid(schema.GroupKind{}, "", …): no kind, no name, one cause on `patch`. */
function invalidPatch(value: string, detail: string): StatusError {
  const error: FieldError = { type: 'FieldValueInvalid', field: 'patch', value, detail };
  return new StatusError(422, 'Invalid', ` "" is invalid: ${fieldErrorText(error)}`, {
    causes: [{ reason: error.type, message: fieldErrorBody(error), field: error.field }],
  });
}

/**
 * `object` decoded as the apiserver decodes an object of `type` (autoscaling/v1 Scale for the
 * scale subresource), or the StatusError it answers with.
 */
export function decodeOrRefuse<T>(
  type: { group: string; version: string; kind: string },
  object: T,
  source: DecodeSource,
): T {
  const { kind, version } = type;
  const model = modelFor(type);
  if (!model) return object;
  const strategic = source.from === 'patch' && source.patchType === 'strategic';
  try {
    const literals = source.from === 'body' ? source.numberLiterals : undefined;
    return decodeTyped(model, object, strategic ? 'unstructured' : 'json', literals);
  } catch (err) {
    if (!(err instanceof GoDecodeError)) throw err;
    if (source.from === 'body')
      throw statusErrors.badRequest(
        `${kind} in version "${version}" cannot be handled as a ${kind}: ${err.message}`,
      );
    throw invalidPatch(strategic ? goFormat(source.patch) : JSON.stringify(object), err.message);
  }
}
