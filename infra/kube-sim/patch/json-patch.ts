/**
 * RFC 6902 JSON patch (`application/json-patch+json`) as kube-apiserver applies it: the handler in
 * k8s.io/apiserver/pkg/endpoints/handlers/patch.go (`jsonPatcher.applyJSPatch`) running
 * gopkg.in/evanphx/json-patch.v4 (`Patch.Apply`). That library departs from the RFC in places and
 * the simulator copies it, because clients see the library's behaviour, not the RFC's:
 *
 * - `replace` of a missing key in an existing object adds the key (the v4 `partialDoc.get` never fails);
 * - `copy` from a missing key in an object copies `null`;
 * - negative array indexes count from the end (`SupportNegativeIndices` defaults to true);
 * - `add` / `remove` of the whole document (path "") fail; `replace` / `test` of "" work;
 * - array indexes are parsed with Go's `strconv.Atoi` ("+1" and "01" are accepted).
 *
 * Pure: the input document and operations are never mutated; a failing patch changes nothing.
 */
import { StatusError, statusErrors } from '../errors.ts';
import { clone, isPlainObject } from '../types.ts';

/** patch.go `maxJSONPatchOperations`. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/**
 * jsonpatch.AccumulatedCopySizeLimit, which the apiserver sets from `JSONPatchMaxCopyBytes`
 * (k8s.io/apiserver/pkg/server/config.go: `int64(3 * 1024 * 1024)`).
 */
export const JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024;

type Container = Record<string, unknown> | unknown[];

interface Operation {
  [field: string]: unknown;
}

/** The document being patched; `replace ""` swaps the root, so it lives in a box. */
interface Root {
  doc: unknown;
}

/** An evanphx error: the text upstream builds, kept as the StatusError's `cause` for debugging. */
class JsonPatchFailure extends Error {}

/** Applies `operations` (an RFC 6902 array) to a copy of `doc` and returns the copy. */
export function applyJsonPatch(doc: unknown, operations: unknown): unknown {
  const ops = decodeOperations(operations);
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    // patch.go: errors.NewRequestEntityTooLargeError(fmt.Sprintf("The allowed maximum operations
    // in a JSON patch is %d, got %d", ...)) → 413 RequestEntityTooLarge, "Request entity too large: " prefix.
    throw new StatusError(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
    );
  }
  const root: Root = { doc: clone(doc) };
  try {
    if (!Array.isArray(root.doc) && !isPlainObject(root.doc)) {
      // Patch.ApplyIndent unmarshals the document into a map or slice first; a scalar fails there.
      throw new JsonPatchFailure(
        `json: cannot unmarshal ${jsonValueKind(root.doc)} into Go value of type jsonpatch.partialDoc`,
      );
    }
    const copied = { bytes: 0 };
    for (const op of ops) applyOperation(root, op, copied);
  } catch (error) {
    if (error instanceof JsonPatchFailure) throw patchNotApplicable(error);
    throw error;
  }
  return root.doc;
}

/**
 * Any error from `Patch.Apply` (a failed `test`, a missing path, a bad index) becomes
 * `errors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "",
 * err.Error(), 0, false)` in patch.go. That constructor discards the server message for 422 and
 * uses its canned text, with empty details (k8s.io/apimachinery/pkg/api/errors/errors.go). Users
 * see exactly this (kubernetes-client/javascript#2095: "The request is invalid: the server rejected
 * our request due to an error in our request"; java-operator-sdk#2759 shows code 422, empty details).
 */
function patchNotApplicable(failure: JsonPatchFailure): StatusError {
  const error = new StatusError(
    422,
    'Invalid',
    'the server rejected our request due to an error in our request',
    {},
  );
  error.cause = failure;
  return error;
}

/**
 * The kind word Go's encoding/json puts in an UnmarshalTypeError ("cannot unmarshal <kind> into …").
 * Exported for the merge-patch engine, which reports the same decoding errors.
 */
export function jsonValueKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

/**
 * The apiserver decodes the body twice. With fieldValidation Warn (the default when the client
 * sends none) or Strict (kubectl's default), `kjson.UnmarshalStrict(patchBytes, &[]jsonPatchOp)`
 * runs first and a type error becomes `errors.NewBadRequest("error decoding patch: " + err)`
 * (patch.go). So a body that is not an array, an element that is not an object, or an op/path/from
 * that is not a string is a 400 with Go's encoding/json message. `null` decodes to no operations.
 * Not modelled: with fieldValidation=Ignore the message is instead `json: cannot unmarshal … into Go
 * value of type jsonpatch.Patch`, and with Strict unknown operation fields are a 422.
 */
function decodeOperations(operations: unknown): Operation[] {
  if (operations === null) return [];
  if (!Array.isArray(operations)) {
    throw decodingError(
      `json: cannot unmarshal ${jsonValueKind(operations)} into Go value of type []handlers.jsonPatchOp`,
    );
  }
  const ops: Operation[] = [];
  for (const element of operations) {
    if (element === null) {
      ops.push({});
      continue;
    }
    if (!isPlainObject(element)) {
      throw decodingError(
        `json: cannot unmarshal ${jsonValueKind(element)} into Go value of type handlers.jsonPatchOp`,
      );
    }
    checkStringFields(element);
    ops.push(element);
  }
  return ops;
}

/** jsonPatchOp's `op`, `path` and `from` are Go strings: JSON null is allowed, other kinds are not. */
function checkStringFields(element: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(element)) {
    if (field !== 'op' && field !== 'path' && field !== 'from') continue;
    if (value === null || typeof value === 'string') continue;
    throw decodingError(
      `json: cannot unmarshal ${jsonValueKind(value)} into Go struct field jsonPatchOp.${field} of type string`,
    );
  }
}

function decodingError(message: string): StatusError {
  return statusErrors.badRequest(`error decoding patch: ${message}`);
}

/** The operations, by the `op` name (Operation.Kind(): anything but a string reads "unknown"). */
const OPERATIONS: Record<string, (root: Root, op: Operation, copied: { bytes: number }) => void> = {
  add: addOp,
  remove: removeOp,
  replace: replaceOp,
  move: moveOp,
  test: testOp,
  copy: copyOp,
};

function applyOperation(root: Root, op: Operation, copied: { bytes: number }): void {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  const apply = Object.hasOwn(OPERATIONS, kind) ? OPERATIONS[kind] : undefined;
  if (!apply) throw new JsonPatchFailure(`Unexpected kind: ${kind}`);
  apply(root, op, copied);
}

/** Operation.Path(): a missing or null `path` is an error. */
function pathOf(op: Operation, name: string): string {
  if (typeof op.path === 'string') return op.path;
  throw new JsonPatchFailure(`${name} operation failed to decode path: missing value`);
}

/** Operation.From(). */
function fromOf(op: Operation, name: string): string {
  if (typeof op.from === 'string') return op.from;
  throw new JsonPatchFailure(
    `${name} operation failed to decode from: operation, missing from field: missing value`,
  );
}

/** Operation.value(): an absent `value` behaves as null. Copied so later operations never alias the input. */
function operationValue(op: Operation): unknown {
  return Object.hasOwn(op, 'value') ? clone(op.value) : null;
}

function addOp(root: Root, op: Operation): void {
  const path = pathOf(op, 'add');
  const target = findContainer(root, path);
  if (!target) {
    throw new JsonPatchFailure(`add operation does not apply: doc is missing path: "${path}": missing value`);
  }
  wrap(`error in add for path: '${path}'`, () => addTo(target.container, target.key, operationValue(op)));
}

function removeOp(root: Root, op: Operation): void {
  const path = pathOf(op, 'remove');
  const target = findContainer(root, path);
  if (!target) {
    throw new JsonPatchFailure(
      `remove operation does not apply: doc is missing path: "${path}": missing value`,
    );
  }
  wrap(`error in remove for path: '${path}'`, () => removeFrom(target.container, target.key));
}

function replaceOp(root: Root, op: Operation): void {
  const path = pathOf(op, 'replace');
  if (path === '') {
    // The whole document may be replaced, but only by an object or an array.
    const value = operationValue(op);
    if (!Array.isArray(value) && !isPlainObject(value)) {
      throw new JsonPatchFailure('replace operation value must be object or array');
    }
    root.doc = value;
    return;
  }
  const target = findContainer(root, path);
  if (!target) {
    throw new JsonPatchFailure(
      `replace operation does not apply: doc is missing path: ${path}: missing value`,
    );
  }
  // Only an array lookup can fail here: v4 lets `replace` create a missing object key.
  if (Array.isArray(target.container) && resolveIndex(target.container, target.key) === undefined) {
    throw new JsonPatchFailure(
      `replace operation does not apply: doc is missing key: ${path}: missing value`,
    );
  }
  setIn(target.container, target.key, operationValue(op));
}

function moveOp(root: Root, op: Operation): void {
  const from = fromOf(op, 'move');
  const source = findContainer(root, from);
  if (!source) {
    throw new JsonPatchFailure(
      `move operation does not apply: doc is missing from path: ${from}: missing value`,
    );
  }
  const value = wrap(`error in move for path: '${source.key}'`, () => getFrom(source.container, source.key));
  wrap(`error in move for path: '${source.key}'`, () => removeFrom(source.container, source.key));
  const path = pathOf(op, 'move');
  const target = findContainer(root, path);
  if (!target) {
    throw new JsonPatchFailure(
      `move operation does not apply: doc is missing destination path: ${path}: missing value`,
    );
  }
  wrap(`error in move for path: '${path}'`, () => addTo(target.container, target.key, value));
}

function testOp(root: Root, op: Operation): void {
  const path = pathOf(op, 'test');
  const hasValue = Object.hasOwn(op, 'value') && op.value !== null;
  const failed = () => new JsonPatchFailure(`testing value ${path} failed: test failed`);
  if (path === '') {
    if (!Object.hasOwn(op, 'value') || !jsonEqual(root.doc, op.value)) throw failed();
    return;
  }
  const target = findContainer(root, path);
  if (!target) {
    throw new JsonPatchFailure(`test operation does not apply: is missing path: ${path}: missing value`);
  }
  const actual = wrap(`error in test for path: '${path}'`, () => getFrom(target.container, target.key));
  // A missing key (or a null) matches an absent or null `value`, and nothing else.
  if (actual === null || actual === undefined) {
    if (hasValue) throw failed();
    return;
  }
  if (!hasValue || !jsonEqual(actual, op.value)) throw failed();
}

function copyOp(root: Root, op: Operation, copied: { bytes: number }): void {
  const from = fromOf(op, 'copy');
  const source = findContainer(root, from);
  if (!source) {
    throw new JsonPatchFailure(
      `copy operation does not apply: doc is missing from path: ${from}: missing value`,
    );
  }
  const value = wrap(`error in copy for from: '${from}'`, () => getFrom(source.container, source.key));
  const path = pathOf(op, 'copy');
  const target = findContainer(root, path);
  if (!target) {
    throw new JsonPatchFailure(
      `copy operation does not apply: doc is missing destination path: ${path}: missing value`,
    );
  }
  // deepCopy counts the copied JSON's bytes (a missing value counts 0) against the limit.
  const missing = value === undefined || value === null;
  copied.bytes += missing ? 0 : jsonByteLength(value);
  if (copied.bytes > JSON_PATCH_MAX_COPY_BYTES) {
    throw new JsonPatchFailure(
      `Unable to complete the copy, the accumulated size increase of copy is ${copied.bytes}, exceeding the limit ${JSON_PATCH_MAX_COPY_BYTES}`,
    );
  }
  const copy = missing ? null : clone(value);
  wrap('error while adding value during copy', () => addTo(target.container, target.key, copy));
}

/**
 * findObject: walks every token but the last and returns the container holding the last one.
 * Tokens are unescaped (~1 → /, ~0 → ~). A path without a leading token ("" or "a") has no
 * container; a null or scalar on the way has none either.
 */
function findContainer(root: Root, path: string): { container: Container; key: string } | undefined {
  const tokens = path.split('/');
  if (tokens.length < 2) return undefined;
  let current = root.doc;
  for (const token of tokens.slice(1, -1)) {
    if (!Array.isArray(current) && !isPlainObject(current)) return undefined;
    let next: unknown;
    try {
      next = getFrom(current, unescapeToken(token));
    } catch {
      return undefined;
    }
    current = next;
  }
  if (!Array.isArray(current) && !isPlainObject(current)) return undefined;
  return { container: current, key: unescapeToken(tokens[tokens.length - 1] ?? '') };
}

/** RFC 6901 §4, in one pass so "~01" becomes "~1". */
function unescapeToken(token: string): string {
  return token.replace(/~[01]/g, (sequence) => (sequence === '~1' ? '/' : '~'));
}

/** container.get: a missing object key is undefined (not an error); a bad array index throws. */
function getFrom(container: Container, key: string): unknown {
  if (!Array.isArray(container)) return Object.hasOwn(container, key) ? container[key] : undefined;
  const index = resolveIndex(container, key);
  if (index === undefined) throw badIndex(key);
  return container[index];
}

/** partialArray.add / partialDoc.add: "-" appends; an index may equal the length; objects overwrite. */
function addTo(container: Container, key: string, value: unknown): void {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return;
  }
  if (key === '-') {
    container.push(value);
    return;
  }
  const parsed = parseGoInt(key);
  if (parsed === undefined) {
    throw new JsonPatchFailure(
      `value was not a proper array index: '${key}': strconv.Atoi: parsing "${key}": invalid syntax`,
    );
  }
  const size = container.length + 1;
  if (parsed >= size || parsed < -size) throw badIndex(String(parsed));
  container.splice(parsed < 0 ? parsed + size : parsed, 0, value);
}

function removeFrom(container: Container, key: string): void {
  if (!Array.isArray(container)) {
    if (!Object.hasOwn(container, key)) {
      throw new JsonPatchFailure(`Unable to remove nonexistent key: ${key}: missing value`);
    }
    delete container[key];
    return;
  }
  const index = resolveIndex(container, key);
  if (index === undefined) throw badIndex(key);
  container.splice(index, 1);
}

/** container.set, only reached for keys that resolved (or object keys). */
function setIn(container: Container, key: string, value: unknown): void {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return;
  }
  const index = resolveIndex(container, key);
  if (index === undefined) throw badIndex(key);
  container[index] = value;
}

/** An existing element's index: Go Atoi syntax, negative counts from the end, in range. */
function resolveIndex(array: unknown[], key: string): number | undefined {
  const parsed = parseGoInt(key);
  if (parsed === undefined) return undefined;
  const index = parsed < 0 ? parsed + array.length : parsed;
  return index >= 0 && index < array.length ? index : undefined;
}

/** strconv.Atoi: optional sign, decimal digits, nothing else. */
function parseGoInt(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

function badIndex(key: string): JsonPatchFailure {
  return new JsonPatchFailure(`Unable to access invalid index: ${key}: invalid index referenced`);
}

/** Runs a step and prefixes its failure the way evanphx wraps errors (`fmt.Errorf("…: %w", err)`). */
function wrap<T>(prefix: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof JsonPatchFailure) throw new JsonPatchFailure(`${prefix}: ${error.message}`);
    throw error;
  }
}

/** Structural JSON equality (lazyNode.equal): key order never matters, array order does. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isPlainObject(a) || isPlainObject(b)) {
    if (!isPlainObject(a) || !isPlainObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return a === b;
}

/**
 * Size of the value's JSON encoding in bytes. Go's encoder also escapes <, > and & as \u003c
 * (6 bytes instead of 1); the small remaining differences in number and control-character
 * spelling are ignored.
 */
function jsonByteLength(value: unknown): number {
  const text = JSON.stringify(value) ?? 'null';
  const htmlEscapes = text.match(/[<>&]/g)?.length ?? 0;
  return Buffer.byteLength(text, 'utf8') + htmlEscapes * 5;
}

/** Own-property write that never trips the `__proto__` setter. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
