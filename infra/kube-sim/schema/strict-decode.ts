/**
 * Decoding a request's object into the kind's Go types, as the apiserver does before anything
 * else looks at it: a value of the wrong JSON type is refused, `null` is the zero value, and
 * quantities come out canonical (`0.5` → `500m`). Two decoders, with their own wording:
 *
 * - 'json': the json serializer (apimachinery pkg/runtime/serializer/json, sigs.k8s.io/json's
 *   fork of encoding/json) for create, update, apply and JSON/merge patch results:
 *   `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type
 *   int32`. The field path is the JSON names of struct fields from the root (no indices or map
 *   keys), the struct the innermost one. Like encoding/json it keeps the first type error and goes
 *   on; errors of custom decoders (Quantity, IntOrString, Time) stop it at once and carry no
 *   field context (they come from the std library's json, which the fork does not annotate).
 * - 'unstructured': runtime.DefaultUnstructuredConverter.FromUnstructured (apimachinery
 *   pkg/runtime/converter.go), which strategic merge patch results go through: `cannot convert
 *   float64 to int32`, `unrecognized type: int32`, `cannot restore struct from: string`.
 *
 * The schema is go-types.ts (client-node's models), so a kind decodes as soon as it is modelled.
 */
import { isPlainObject } from '../types.ts';
import { canonicalQuantity, QuantityParseError } from './canonical-quantity.ts';
import { base64Error } from './go-base64.ts';
import { goTimeError } from './go-time.ts';
import { type GoType, goStructName, goTypeName, structFields } from './go-types.ts';

export type Dialect = 'json' | 'unstructured';

/** The decoder's error, worded as upstream's. */
export class GoDecodeError extends Error {
  override name = 'GoDecodeError';
}

/** Thrown to stop decoding at once (custom decoders, and every converter error). */
class Abort extends Error {}

interface Context {
  dialect: Dialect;
  /** Go name of the innermost struct being decoded. */
  struct: string;
  /** JSON names of the struct fields from the root. */
  fields: string[];
  /** encoding/json's savedError: the first type error, reported once the document is read. */
  saved?: string;
  /** Full path of the value being decoded, as number-literals.ts writes paths. */
  path: string;
  /** The body's number literals JSON.parse respelled (number-literals.ts), by path. */
  literals?: Map<string, string>;
}

/** The text Go's decoder saw for a number: the body's literal when JSON.parse respelled it. */
const numberText = (value: number, ctx: Context) => ctx.literals?.get(ctx.path) ?? String(value);

/** strconv.ParseInt's view: only plain digits make an integer (`1.0` and `1e3` do not). */
function intLiteral(value: number, ctx: Context): boolean {
  return Number.isInteger(value) && /^-?[0-9]+$/.test(numberText(value, ctx));
}

/** Runs `step` with the context's path one segment deeper. */
function at<T>(ctx: Context, path: string, step: () => T): T {
  const outer = ctx.path;
  ctx.path = path;
  try {
    return step();
  } finally {
    ctx.path = outer;
  }
}

const jsonKind = (v: unknown) =>
  typeof v === 'boolean'
    ? 'bool'
    : Array.isArray(v)
      ? 'array'
      : isPlainObject(v)
        ? 'object'
        : typeof v === 'number'
          ? 'number'
          : 'string';

/** reflect.Kind of a value in an unstructured map (integers are int64, the rest float64). */
const unstructuredKind = (v: unknown) =>
  typeof v === 'number'
    ? Number.isInteger(v)
      ? 'int64'
      : 'float64'
    : typeof v === 'boolean'
      ? 'bool'
      : Array.isArray(v)
        ? 'slice'
        : isPlainObject(v)
          ? 'map'
          : 'string';

function typeError(ctx: Context, value: string, t: GoType): void {
  if (ctx.saved !== undefined) return;
  const where = ctx.fields.length > 0 ? `Go struct field ${ctx.struct}.${ctx.fields.join('.')}` : 'Go value';
  ctx.saved = `json: cannot unmarshal ${value} into ${where} of type ${goTypeName(t)}`;
}

function abort(message: string): never {
  throw new Abort(message);
}

const INT_RANGE = { int32: 2 ** 31, int64: 2 ** 63 } as const;

function fitsInt(v: number, go: 'int32' | 'int64'): boolean {
  return Number.isInteger(v) && v >= -INT_RANGE[go] && v < INT_RANGE[go];
}

/** The zero value a `null` array element or map value decodes to (undefined: stays null). */
function zero(t: GoType): unknown {
  switch (t.kind) {
    case 'scalar':
      return t.go === 'string' ? '' : t.go === 'bool' ? false : 0;
    case 'struct':
      return {};
    case 'quantity':
      return '0';
    case 'intstr':
      return 0;
    default:
      return null;
  }
}

/** A decoded value; undefined drops the field (null, or a value the decoder could not store). */
function decode(value: unknown, t: GoType, ctx: Context): unknown {
  if (value === null) return undefined;
  switch (t.kind) {
    case 'any':
      return value;
    case 'quantity':
      try {
        if (typeof value === 'string') return canonicalQuantity(value);
        if (typeof value === 'number') return canonicalQuantity(ctx.literals?.get(ctx.path) ?? value);
        // UnmarshalJSON parses any other JSON text as a quantity, which it never is.
        return canonicalQuantity(JSON.stringify(value));
      } catch (err) {
        if (err instanceof QuantityParseError) abort(err.message);
        throw err;
      }
    case 'intstr':
      // IntOrString.UnmarshalJSON: a string, else json.Unmarshal into its int32.
      if (typeof value === 'string') return value;
      if (typeof value === 'number' && fitsInt(value, 'int32') && intLiteral(value, ctx)) return value;
      abort(
        `json: cannot unmarshal ${typeof value === 'number' ? `number ${numberText(value, ctx)}` : jsonKind(value)} into Go value of type int32`,
      );
      break;
    case 'time': {
      if (typeof value !== 'string')
        abort(`json: cannot unmarshal ${jsonKind(value)} into Go value of type string`);
      const problem = goTimeError(value as string);
      if (problem) abort(problem);
      return value;
    }
    case 'bytes':
      if (typeof value === 'string') {
        const problem = base64Error(value);
        if (problem === undefined) return value;
        if (ctx.dialect === 'unstructured') abort(`error decoding from json: ${problem}`);
        ctx.saved ??= problem;
        return undefined;
      }
      return mismatch(value, t, ctx, 'slice');
    case 'scalar':
      return scalar(value, t, ctx);
    case 'array':
      if (!Array.isArray(value)) return mismatch(value, t, ctx, 'slice');
      return value.map((item, i) =>
        item === null
          ? zero(t.item)
          : (at(ctx, `${ctx.path}[${i}]`, () => decode(item, t.item, ctx)) ?? zero(t.item)),
      );
    case 'map': {
      if (!isPlainObject(value)) return mismatch(value, t, ctx, 'map');
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const child = ctx.path ? `${ctx.path}.${k}` : k;
        out[k] =
          v === null ? zero(t.value) : (at(ctx, child, () => decode(v, t.value, ctx)) ?? zero(t.value));
      }
      return out;
    }
    case 'struct':
      if (!isPlainObject(value)) return mismatch(value, t, ctx, 'struct');
      return struct(value, t, ctx);
  }
}

/** A JSON value of the wrong kind for a slice, map or struct. */
function mismatch(value: unknown, t: GoType, ctx: Context, target: 'slice' | 'map' | 'struct'): undefined {
  if (ctx.dialect === 'unstructured') {
    const from = unstructuredKind(value);
    abort(
      target === 'struct' ? `cannot restore struct from: ${from}` : `cannot restore ${target} from ${from}`,
    );
  }
  typeError(ctx, jsonKind(value), t);
  return undefined;
}

function scalar(value: unknown, t: GoType & { kind: 'scalar' }, ctx: Context): unknown {
  const { go } = t;
  if (ctx.dialect === 'unstructured') {
    // converter.go: assignable or convertible within the same group (bool, numbers, string).
    const from = unstructuredKind(value);
    if (go === 'string') {
      if (typeof value === 'string') return value;
      abort(from === 'int64' ? 'cannot convert int64 to string' : 'unrecognized type: string');
    }
    if (go === 'bool') {
      if (typeof value === 'boolean') return value;
      abort('unrecognized type: bool');
    }
    if (typeof value !== 'number') abort(`unrecognized type: ${go}`);
    if (go === 'float64' || Number.isInteger(value)) return go === 'int32' ? (value as number) | 0 : value;
    abort(`cannot convert float64 to ${go}`);
  }
  const ok =
    go === 'string'
      ? typeof value === 'string'
      : go === 'bool'
        ? typeof value === 'boolean'
        : typeof value === 'number' && (go === 'float64' || (fitsInt(value, go) && intLiteral(value, ctx)));
  if (ok) return value;
  // Go names the literal when a number does not parse as the integer (`number 1.5`, `number 1e+06`).
  const what =
    typeof value === 'number' && (go === 'int32' || go === 'int64')
      ? `number ${numberText(value, ctx)}`
      : jsonKind(value);
  typeError(ctx, what, t);
  return undefined;
}

function struct(value: Record<string, unknown>, t: GoType & { kind: 'struct' }, ctx: Context): unknown {
  const fields = structFields(t.model);
  if (!fields) return value;
  const byName = new Map(fields.map((f) => [f.json, f.type]));
  const out: Record<string, unknown> = {};
  const outer = ctx.struct;
  for (const [key, child] of Object.entries(value)) {
    const type = byName.get(key);
    // Unknown fields are kept for known-fields.ts, which reports and drops them.
    if (type === undefined) {
      out[key] = child;
      continue;
    }
    ctx.struct = t.name;
    ctx.fields.push(key);
    const decoded = at(ctx, ctx.path ? `${ctx.path}.${key}` : key, () => decode(child, type, ctx));
    ctx.fields.pop();
    ctx.struct = outer;
    if (decoded !== undefined) out[key] = decoded;
  }
  return out;
}

/**
 * `object` decoded into model `model` (`V1Deployment`): the object as the Go value re-encodes it
 * (nulls gone, quantities canonical), or a GoDecodeError. A model client-node lacks decodes as is.
 */
export function decodeTyped<T>(
  model: string,
  object: T,
  dialect: Dialect = 'json',
  literals?: Map<string, string>,
): T {
  if (!structFields(model)) return object;
  const ctx: Context = {
    dialect,
    struct: goStructName(model).name,
    fields: [],
    path: '',
    ...(literals && literals.size > 0 ? { literals } : {}),
  };
  let decoded: unknown;
  try {
    decoded = decode(object, { kind: 'struct', model, ...goStructName(model) }, ctx);
  } catch (err) {
    if (err instanceof Abort) throw new GoDecodeError(err.message);
    throw err;
  }
  if (ctx.saved !== undefined) throw new GoDecodeError(ctx.saved);
  return decoded as T;
}
