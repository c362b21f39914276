/**
 * field.Error constructors and field.Path rendering (k8s.io/apimachinery/pkg/util/validation/field),
 * so each check in this folder reads like the upstream line it follows.
 */
import type { FieldError } from '../errors.ts';

/** A rendered field.Path, as Path.String() prints it: `spec.template.spec.containers[0].name`. */
export type Path = string;

/** field.NewPath("").String(): an unnamed root prints as an empty subscript. */
export const ROOT: Path = '[]';

/** Path.Child(...): a named step, `.`-separated except at the root. */
export function child(path: Path, ...names: string[]): Path {
  let out = path;
  for (const name of names) out = out ? `${out}.${name}` : name;
  return out;
}

/** Path.Index(i): `[0]`. */
export function index(path: Path, i: number): Path {
  return `${path}[${i}]`;
}

/** Path.Key(k): map keys print unquoted, `data[tls.crt]`. */
export function key(path: Path, k: string): Path {
  return `${path}[${k}]`;
}

/** field.Required: the value is never printed; the detail is optional. */
export function required(field: Path, detail = ''): FieldError {
  return detail ? { type: 'FieldValueRequired', field, detail } : { type: 'FieldValueRequired', field };
}

/** field.Invalid: prints the offending value. */
export function invalid(field: Path, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, value, detail };
}

/** field.Invalid with field.OmitValueType{}: no value in the message. */
export function invalidOmitValue(field: Path, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail };
}

export function forbidden(field: Path, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail };
}

export function duplicate(field: Path, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, value };
}

export function notFound(field: Path, value: unknown, detail = ''): FieldError {
  return detail
    ? { type: 'FieldValueNotFound', field, value, detail }
    : { type: 'FieldValueNotFound', field, value };
}

/** field.NotSupported: `supported values: "A", "B"` (each quoted with strconv.Quote). */
export function notSupported(field: Path, value: unknown, validValues: readonly string[]): FieldError {
  const error: FieldError = { type: 'FieldValueNotSupported', field, value };
  if (validValues.length > 0) {
    error.detail = `supported values: ${validValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return error;
}

/** field.TooLong; the wording changed in 1.32 from `must have at most N bytes`. */
export function tooLong(field: Path, maxLength: number): FieldError {
  const detail =
    maxLength >= 0
      ? `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}`
      : 'value is too long';
  return { type: 'FieldValueTooLong', field, detail };
}

export function tooMany(field: Path, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, value: actual, detail: `must have at most ${max} items` };
}

/** Prefixes each message of a `[]string` validator into field.Invalid errors, as the callers upstream do. */
export function invalidEach(field: Path, value: unknown, messages: readonly string[]): FieldError[] {
  return messages.map((msg) => invalid(field, value, msg));
}
