/**
 * Field sets, as structured-merge-diff's `fieldpath` package has them (SMD v6, the copy vendored
 * by kubernetes/kubernetes: `fieldpath/set.go`, `element.go`, `path.go`, `serialize.go`,
 * `serialize-pe.go`, `value/value.go`, `value/fields.go`).
 *
 * A set is a tree: at each level, `members` are the path elements owned themselves and `children`
 * the elements under which something is owned. An element can be both (a container item owned
 * as a whole and field by field), which FieldsV1 writes as `".": {}`.
 */
import { isAtomicMap, itemKey, type ListType, listTypeAt } from '../schema/list-types.ts';
import { isPlainObject } from '../types.ts';

/** One step of a path: a struct field or map key, a list-map item, a set value, a list index. */
export type PathElement =
  | { type: 'field'; name: string }
  | { type: 'key'; fields: KeyField[] }
  | { type: 'value'; value: unknown }
  | { type: 'index'; index: number };

/** A list-map key field; a key's fields are sorted by name (`value.FieldList.Sort`). */
export type KeyField = readonly [name: string, value: unknown];

export type Path = readonly PathElement[];

export const field = (name: string): PathElement => ({ type: 'field', name });

// ---------------------------------------------------------------------------------------------
// JSON values: ordering, equality and Go's formatting of them.

/** Go compares strings byte-wise on UTF-8, which is code point order (JS `<` compares UTF-16 units). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done) return cb.done ? 0 : -1;
    if (cb.done) return 1;
    const d = ca.value.codePointAt(0)! - cb.value.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}

/** `value.Compare`'s type order: numbers, strings, booleans, lists, maps, then null. */
function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isPlainObject(v)) return 4;
  return 5;
}

/** Total order on JSON values (`value.CompareUsing`): ints and floats compare numerically. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < a.length && i < b.length; i++) {
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  if (isPlainObject(a) && isPlainObject(b)) return compareMaps(a, b);
  return 0;
}

/** `value.MapCompareUsing`: keys zipped in lexical order; a missing key sorts after a present one. */
function compareMaps(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const la = Object.keys(a).length;
  const lb = Object.keys(b).length;
  if (la === 0 && lb === 0) return 0;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(compareStrings);
  let i = 0;
  for (const key of keys) {
    let c: number;
    if (i === la) c = -1;
    else if (i === lb) c = 1;
    else if (!(key in a)) c = 1;
    else if (!(key in b)) c = -1;
    else c = compareValues(a[key], b[key]);
    i++;
    if (c !== 0) return c;
  }
  return 0;
}

/** Deep equality of JSON values (`value.EqualsUsing`). */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => valuesEqual(item, b[i]));
  }
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && valuesEqual(a[k], b[k]));
  }
  return false;
}

/** A JSON string as Go's encoding/json writes it (HTML-safe: `<`, `>`, `&` become `\u003c`…). */
function goJsonString(s: string, escapeHtml = true): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x2028 || code === 0x2029 || (escapeHtml && '<>&'.includes(ch)))
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * JSON as Go's encoding/json (and json-iterator's ConfigCompatibleWithStandardLibrary) writes
 * `interface{}` values: map keys sorted, HTML characters escaped, no spaces.
 */
export function goJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goJsonString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v).sort(compareStrings);
    return `{${keys.map((k) => `${goJsonString(k)}:${goJson(v[k])}`).join(',')}}`;
  }
  return 'null';
}

/** Go's `%q` (strconv.Quote) for the strings found in keys and set values. */
export function goQuote(s: string): string {
  const named: Record<string, string> = {
    '\x07': '\\a',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\v': '\\v',
    '"': '\\"',
    '\\': '\\\\',
  };
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (named[ch]) out += named[ch];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** `value.ToString`: how key and set values appear in printed paths. */
function valueToString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  if (isPlainObject(v)) {
    return Object.keys(v)
      .sort(compareStrings)
      .map((k) => `${k}=${valueToString(v[k])}`)
      .join('');
  }
  return '{{undefined}}';
}

// ---------------------------------------------------------------------------------------------
// Path elements.

const TYPE_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

/** `PathElement.Compare`: field names first, then keys, values, indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.type !== b.type) return TYPE_ORDER[a.type] < TYPE_ORDER[b.type] ? -1 : 1;
  switch (a.type) {
    case 'field':
      return compareStrings(a.name, (b as typeof a).name);
    case 'key': {
      const bf = (b as typeof a).fields;
      for (let i = 0; ; i++) {
        if (i >= a.fields.length) return i >= bf.length ? 0 : -1;
        if (i >= bf.length) return 1;
        const c = compareStrings(a.fields[i]![0], bf[i]![0]) || compareValues(a.fields[i]![1], bf[i]![1]);
        if (c !== 0) return c;
      }
    }
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index': {
      const bi = (b as typeof a).index;
      return a.index === bi ? 0 : a.index < bi ? -1 : 1;
    }
  }
}

export function pathElementsEqual(a: PathElement, b: PathElement): boolean {
  return comparePathElements(a, b) === 0;
}

/** `PathElement.String`: `.name`, `[name="web"]`, `[containerPort=80,protocol="TCP"]`, `[="x"]`, `[0]`. */
export function pathElementString(pe: PathElement): string {
  switch (pe.type) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map(([k, v]) => `${k}=${valueToString(v)}`).join(',')}]`;
    case 'value':
      return `[=${valueToString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

/** `Path.String`, as conflict messages print fields: `.spec.template.spec.containers[name="web"].image`. */
export function pathString(path: Path): string {
  return path.map(pathElementString).join('');
}

/** A key element from key fields in any order (`KeyByFields` sorts them by name). */
export function keyElement(fields: Record<string, unknown>): PathElement {
  const sorted = Object.entries(fields).sort(([a], [b]) => compareStrings(a, b));
  return { type: 'key', fields: sorted };
}

/** FieldsV1 object key of an element (`serializePathElementToWriter`). */
export function serializePathElement(pe: PathElement): string {
  switch (pe.type) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      // json-iterator writes field names with WriteObjectField (no HTML escaping), values with WriteVal.
      return `k:{${pe.fields.map(([k, v]) => `${goJsonString(k, false)}:${goJson(v)}`).join(',')}}`;
    case 'value':
      return `v:${goJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** `DeserializePathElement`; undefined for an unknown element type (which readers skip). */
export function deserializePathElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new Error('key must be 2 characters long:');
  if (s[1] !== ':') throw new Error(`missing colon: ${s}`);
  const rest = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { type: 'field', name: rest };
    case 'v':
      return { type: 'value', value: JSON.parse(rest) };
    case 'k': {
      const parsed: unknown = JSON.parse(rest);
      if (!isPlainObject(parsed)) throw new Error(`invalid key element: ${s}`);
      return keyElement(parsed);
    }
    case 'i':
      if (!/^[+-]?\d+$/.test(rest)) throw new Error(`strconv.Atoi: parsing ${goQuote(rest)}: invalid syntax`);
      return { type: 'index', index: Number(rest) };
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Sets.

interface SetNode {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/** Binary search: index of `pe` in `sorted` (found) or where it would go. */
function search<T>(sorted: readonly T[], pe: PathElement, key: (item: T) => PathElement): [number, boolean] {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const c = comparePathElements(key(sorted[mid]!), pe);
    if (c === 0) return [mid, true];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return [lo, false];
}

const self = (pe: PathElement) => pe;
const nodePe = (n: SetNode) => n.pe;

/** An immutable set of field paths. Build one with `FieldSetBuilder` or `FieldSet.of`. */
export class FieldSet {
  static readonly EMPTY = new FieldSet([], []);

  private constructor(
    /** Elements owned at this level, sorted. */
    readonly members: readonly PathElement[],
    /** Elements with owned descendants, sorted; never empty sets. */
    readonly children: readonly SetNode[],
  ) {}

  static of(...paths: Path[]): FieldSet {
    const b = new FieldSetBuilder();
    for (const p of paths) b.insert(p);
    return b.build();
  }

  /** @internal Used by FieldSetBuilder. */
  static fromParts(members: PathElement[], children: SetNode[]): FieldSet {
    return members.length === 0 && children.length === 0 ? FieldSet.EMPTY : new FieldSet(members, children);
  }

  isEmpty(): boolean {
    return this.members.length === 0 && this.children.every((c) => c.set.isEmpty());
  }

  hasMember(pe: PathElement): boolean {
    return search(this.members, pe, self)[1];
  }

  /** The subset under `pe`, without the prefix (`Set.WithPrefix`). */
  withPrefix(pe: PathElement): FieldSet {
    const [i, found] = search(this.children, pe, nodePe);
    return found ? this.children[i]!.set : FieldSet.EMPTY;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false; // nobody owns the whole object
    let s: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) {
      const [j, found] = search(s.children, path[i]!, nodePe);
      if (!found) return false;
      s = s.children[j]!.set;
    }
    return s.hasMember(path[path.length - 1]!);
  }

  union(other: FieldSet): FieldSet {
    const members = mergeSorted(this.members, other.members, self, (a) => a);
    const children = mergeSorted(this.children, other.children, nodePe, (a, b) => ({
      pe: a.pe,
      set: a.set.union(b.set),
    }));
    return FieldSet.fromParts(members, children);
  }

  /** Leaf-wise intersection: `{a} ∩ {a.b}` is empty. */
  intersection(other: FieldSet): FieldSet {
    const members = this.members.filter((pe) => other.hasMember(pe));
    const children: SetNode[] = [];
    for (const node of this.children) {
      const [j, found] = search(other.children, node.pe, nodePe);
      if (!found) continue;
      const set = node.set.intersection(other.children[j]!.set);
      if (!set.isEmpty()) children.push({ pe: node.pe, set });
    }
    return FieldSet.fromParts(members, children);
  }

  /**
   * `Set.Difference`: removes members of `other` level by level. A member of `other` does not
   * remove this set's descendants of that element (`{a.b} - {a}` is `{a.b}`, whatever set.go's
   * doc comment claims); use `recursiveDifference` for that.
   */
  difference(other: FieldSet): FieldSet {
    const members = this.members.filter((pe) => !other.hasMember(pe));
    const children: SetNode[] = [];
    for (const node of this.children) {
      const [j, found] = search(other.children, node.pe, nodePe);
      if (!found) {
        children.push(node);
        continue;
      }
      const set = node.set.difference(other.children[j]!.set);
      if (!set.isEmpty()) children.push({ pe: node.pe, set });
    }
    return FieldSet.fromParts(members, children);
  }

  /** Removes every member of `other` and everything beneath it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const members = this.members.filter((pe) => !other.hasMember(pe));
    const children: SetNode[] = [];
    for (const node of this.children) {
      if (other.hasMember(node.pe)) continue;
      const [j, found] = search(other.children, node.pe, nodePe);
      const set = found ? node.set.recursiveDifference(other.children[j]!.set) : node.set;
      if (!set.isEmpty()) children.push({ pe: node.pe, set });
    }
    return FieldSet.fromParts(members, children);
  }

  /**
   * `EnsureNamedFieldsAreMembers`: also owns the struct fields on the way to owned fields
   * (`a.b.c` gives `a` and `a.b` too when they are struct fields, not map keys). kube-sim has
   * no struct/map distinction, so every field name with owned descendants counts; the built-in
   * kinds it serves have no maps of maps, where the two would differ.
   */
  ensureNamedFieldsAreMembers(): FieldSet {
    const named = this.children.filter((c) => c.pe.type === 'field').map((c) => c.pe);
    const members = mergeSorted(this.members, named, self, (a) => a);
    const children = this.children.map((c) => ({ pe: c.pe, set: c.set.ensureNamedFieldsAreMembers() }));
    return FieldSet.fromParts(members, children);
  }

  equals(other: FieldSet): boolean {
    return (
      this.members.length === other.members.length &&
      this.children.length === other.children.length &&
      this.members.every((pe, i) => pathElementsEqual(pe, other.members[i]!)) &&
      this.children.every(
        (c, i) => pathElementsEqual(c.pe, other.children[i]!.pe) && c.set.equals(other.children[i]!.set),
      )
    );
  }

  /** Owned paths in `Set.Iterate` order: a level's members, then each child's paths. */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (s: FieldSet, prefix: PathElement[]) => {
      for (const pe of s.members) out.push([...prefix, pe]);
      for (const c of s.children) walk(c.set, [...prefix, c.pe]);
    };
    walk(this, []);
    return out;
  }

  /** One path per line, as `Set.String` prints it. */
  toString(): string {
    return this.paths().map(pathString).join('\n');
  }

  /** The FieldsV1 object, keys in the order upstream writes them (`emitContentsV1`). */
  toFieldsV1(): Record<string, unknown> {
    return emit(this, false);
  }

  /** Parses FieldsV1 (`Set.FromJSON` / `readIterV1`); throws on malformed keys. */
  static fromFieldsV1(fields: unknown): FieldSet {
    if (!isPlainObject(fields)) throw new Error('FieldsV1 must be a JSON object');
    return readV1(fields).children ?? FieldSet.EMPTY;
  }
}

/** Merges two sorted arrays; `both` combines elements present in each. */
function mergeSorted<T>(
  a: readonly T[],
  b: readonly T[],
  key: (t: T) => PathElement,
  both: (x: T, y: T) => T,
): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = comparePathElements(key(a[i]!), key(b[j]!));
    if (c < 0) out.push(a[i++]!);
    else if (c > 0) out.push(b[j++]!);
    else out.push(both(a[i++]!, b[j++]!));
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

function emit(s: FieldSet, includeSelf: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (includeSelf && !(s.members.length === 0 && s.children.length === 0)) out['.'] = {};
  let mi = 0;
  let ci = 0;
  while (mi < s.members.length || ci < s.children.length) {
    const m = s.members[mi];
    const c = s.children[ci];
    const order = m && c ? comparePathElements(m, c.pe) : m ? -1 : 1;
    if (order < 0) {
      out[serializePathElement(m!)] = {};
      mi++;
    } else if (order > 0) {
      out[serializePathElement(c!.pe)] = emit(c!.set, false);
      ci++;
    } else {
      out[serializePathElement(c!.pe)] = emit(c!.set, true);
      mi++;
      ci++;
    }
  }
  return out;
}

function readV1(obj: Record<string, unknown>): { children?: FieldSet; isMember: boolean } {
  let isMember = false;
  const b = new FieldSetBuilder();
  let any = false;
  for (const [key, value] of Object.entries(obj)) {
    if (key === '.') {
      isMember = true;
      continue;
    }
    const pe = deserializePathElement(key);
    if (!pe) continue; // unknown element types are dropped, as upstream does
    if (!isPlainObject(value))
      throw new Error(`parsing key as path element: expected an object under ${key}`);
    const sub = readV1(value);
    if (sub.isMember) b.insert([pe]);
    if (sub.children) b.graft(pe, sub.children);
    any = true;
  }
  // An element with no (known) children is a member: `{}` means "owned".
  if (!any) return { isMember: true };
  return { children: b.build(), isMember };
}

interface BuilderNode {
  pe: PathElement;
  builder: FieldSetBuilder;
  grafted?: FieldSet;
}

/** Mutable construction of a set; `build()` hands over the tree. */
export class FieldSetBuilder {
  private readonly members: PathElement[] = [];
  private readonly children: BuilderNode[] = [];

  insert(path: Path): this {
    if (path.length === 0) return this; // the whole object is never owned
    if (path.length === 1) {
      const [i, found] = search(this.members, path[0]!, self);
      if (!found) this.members.splice(i, 0, path[0]!);
      return this;
    }
    this.descend(path[0]!).insert(path.slice(1));
    return this;
  }

  /** Adds every path of `set` under `pe`. */
  graft(pe: PathElement, set: FieldSet): this {
    const node = this.node(pe);
    node.grafted = node.grafted ? node.grafted.union(set) : set;
    return this;
  }

  private node(pe: PathElement): BuilderNode {
    const [i, found] = search(this.children, pe, (n) => n.pe);
    if (found) return this.children[i]!;
    const node: BuilderNode = { pe, builder: new FieldSetBuilder() };
    this.children.splice(i, 0, node);
    return node;
  }

  private descend(pe: PathElement): FieldSetBuilder {
    return this.node(pe).builder;
  }

  build(): FieldSet {
    const children: SetNode[] = [];
    for (const c of this.children) {
      let set = c.builder.build();
      if (c.grafted) set = set.union(c.grafted);
      if (!set.isEmpty()) children.push({ pe: c.pe, set });
    }
    return FieldSet.fromParts([...this.members], children);
  }
}

// ---------------------------------------------------------------------------------------------
// Typed values: how an object's shape maps to paths (SMD `typed/helpers.go`, `tofieldset.go`,
// `compare.go`, `validate.go`). kube-sim has no OpenAPI models: lists and atomic maps come from
// ../schema/list-types.ts and every other JSON object is a granular struct.

/** What a value is, for walking: a leaf, a (granular or atomic) map/struct, or a list. */
export type Atom = { type: 'scalar' } | { type: 'map'; atomic: boolean } | { type: 'list'; list: ListType };

/**
 * The atom for the values found at schema path `spath` (field names, `[]` for list items) on
 * either side of an operation. null is a valid empty list or map (`listValue`/`mapValue`), so it
 * takes the other side's shape; values of different shapes are compared as leaves.
 */
export function atomAt(kind: string, spath: readonly string[], ...values: unknown[]): Atom {
  const present = values.filter((v) => v !== undefined && v !== null);
  if (present.length > 0 && present.every(Array.isArray))
    return { type: 'list', list: listTypeAt(kind, [...spath]) };
  if (present.length > 0 && present.every(isPlainObject))
    return { type: 'map', atomic: isAtomicMap(kind, [...spath]) };
  return { type: 'scalar' };
}

/** A structured-merge-diff ValidationError: `.spec.containers: element 0: …`. */
export class SmdError extends Error {
  constructor(readonly errors: { path: string; message: string }[]) {
    super(
      errors.length === 1
        ? describe(errors[0]!)
        : ['errors:', ...errors.map((e) => `  ${describe(e)}`)].join('\n'),
    );
    this.name = 'SmdError';
  }
}

function describe(e: { path: string; message: string }): string {
  return e.path ? `${e.path}: ${e.message}` : e.message;
}

/** The path element of a list item (`listItemToPathElement`); throws the upstream message. */
export function listItemElement(list: ListType, item: unknown): PathElement {
  if (list.type === 'map') {
    if (item === null) throw new Error('associative list with keys may not have a null element');
    if (!isPlainObject(item)) throw new Error('associative list with keys may not have non-map elements');
    const key = itemKey(list, item);
    for (const name of list.keys) {
      if (key[name] === undefined)
        throw new Error(
          `associative list with keys has an element that omits key field "${name}" (and doesn't have default value)`,
        );
    }
    return keyElement(key);
  }
  if (list.type === 'set') {
    if (isPlainObject(item))
      throw new Error("associative list without keys has an element that's a map type");
    if (Array.isArray(item)) throw new Error('not supported: associative list with lists as elements');
    if (item === null)
      throw new Error("associative list without keys has an element that's an explicit null");
    return { type: 'value', value: item };
  }
  throw new Error('invalid indexing of non-associative list');
}

/**
 * `TypedValue.Validate`: list items must have their keys, and (unless `allowDuplicates`, which
 * upstream uses for live objects) no two items may share one. Throws an SmdError.
 */
export function validate(kind: string, value: unknown, allowDuplicates: boolean): void {
  const errors: { path: string; message: string }[] = [];
  const walk = (v: unknown, spath: string[], path: string) => {
    const atom = atomAt(kind, spath, v);
    if (atom.type === 'map' && isPlainObject(v)) {
      for (const [k, child] of Object.entries(v)) walk(child, [...spath, k], `${path}.${k}`);
    } else if (atom.type === 'list' && Array.isArray(v)) {
      const seen: PathElement[] = [];
      for (let i = 0; i < v.length; i++) {
        let pe: PathElement = { type: 'index', index: i };
        if (atom.list.type !== 'atomic') {
          try {
            pe = listItemElement(atom.list, v[i]);
          } catch (err) {
            errors.push({ path, message: `element ${i}: ${(err as Error).message}` });
            return; // upstream bails out of the list: it cannot name deeper errors
          }
          if (!allowDuplicates && seen.some((s) => pathElementsEqual(s, pe)))
            errors.push({ path, message: `duplicate entries for key ${pathElementString(pe)}` });
          seen.push(pe);
        }
        walk(v[i], [...spath, '[]'], `${path}${pathElementString(pe)}`);
      }
    }
  };
  walk(value, [], '');
  if (errors.length > 0) throw new SmdError(errors);
}

/**
 * `TypedValue.ToFieldSet`: every leaf, list item and empty or null map the value sets. Items
 * whose key appears more than once (allowed in live objects) are owned as one opaque element.
 */
export function toFieldSet(kind: string, value: unknown): FieldSet {
  const b = new FieldSetBuilder();
  const walk = (v: unknown, spath: string[], path: PathElement[]) => {
    const atom = atomAt(kind, spath, v);
    if (atom.type === 'scalar') {
      b.insert(path);
    } else if (atom.type === 'list') {
      if (atom.list.type === 'atomic') {
        b.insert(path);
        return;
      }
      if (!Array.isArray(v)) return;
      const elements = v.map((item) => listItemElement(atom.list, item));
      const duplicated = elements.filter(
        (pe, i) => elements.findIndex((o) => pathElementsEqual(o, pe)) !== i,
      );
      for (const pe of duplicated) b.insert([...path, pe]);
      v.forEach((item, i) => {
        const pe = elements[i]!;
        if (duplicated.some((d) => pathElementsEqual(d, pe))) return;
        walk(item, [...spath, '[]'], [...path, pe]);
        b.insert([...path, pe]);
      });
    } else {
      if (atom.atomic) {
        b.insert(path);
        return;
      }
      if (!isPlainObject(v)) return;
      for (const [k, child] of Object.entries(v)) {
        const childPath = [...path, field(k)];
        walk(child, [...spath, k], childPath);
        // Struct fields holding null or {} are owned as such; non-empty ones only via their contents.
        if (child === null || (isPlainObject(child) && Object.keys(child).length === 0)) b.insert(childPath);
      }
    }
  };
  walk(value, [], []);
  return b.build();
}

/** Fields removed, modified and added between two values (`typed.Comparison`). */
export interface Comparison {
  removed: FieldSet;
  modified: FieldSet;
  added: FieldSet;
}

/**
 * `TypedValue.Compare` (compareWalker): leaves compare by value; containers present on one side
 * only are added or removed along with everything in them; atomic containers are leaves.
 */
export function compare(kind: string, lhs: unknown, rhs: unknown): Comparison {
  const removed = new FieldSetBuilder();
  const modified = new FieldSetBuilder();
  const added = new FieldSetBuilder();
  const walk = (l: unknown, r: unknown, spath: string[], path: PathElement[]) => {
    const atom = atomAt(kind, spath, l, r);
    let leaf = atom.type === 'scalar';
    if (atom.type === 'list') {
      const ll = Array.isArray(l) ? l : [];
      const rl = Array.isArray(r) ? r : [];
      leaf = atom.list.type === 'atomic' || (ll.length === 0 && rl.length === 0);
      if (!leaf) compareItems(atom.list, ll, rl, spath, path);
    } else if (atom.type === 'map') {
      const lm = isPlainObject(l) ? l : {};
      const rm = isPlainObject(r) ? r : {};
      leaf = atom.atomic || (Object.keys(lm).length === 0 && Object.keys(rm).length === 0);
      if (!leaf) {
        for (const k of zipKeys(lm, rm)) walk(lm[k], rm[k], [...spath, k], [...path, field(k)]);
      }
    }
    if (leaf) {
      if (l === undefined) added.insert(path);
      else if (r === undefined) removed.insert(path);
      else if (!valuesEqual(l, r)) modified.insert(path);
    } else if (l === undefined) added.insert(path);
    else if (r === undefined) removed.insert(path);
  };
  const compareItems = (list: ListType, l: unknown[], r: unknown[], spath: string[], path: PathElement[]) => {
    const groups: { pe: PathElement; l: unknown[]; r: unknown[] }[] = [];
    const group = (pe: PathElement) => {
      const found = groups.find((x) => pathElementsEqual(x.pe, pe));
      if (found) return found;
      const g = { pe, l: [] as unknown[], r: [] as unknown[] };
      groups.push(g);
      return g;
    };
    for (const item of l) group(listItemElement(list, item)).l.push(item);
    for (const item of r) group(listItemElement(list, item)).r.push(item);
    const itemSpath = [...spath, '[]'];
    for (const g of groups) {
      const itemPath = [...path, g.pe];
      if (g.l.length <= 1 && g.r.length <= 1) walk(g.l[0], g.r[0], itemSpath, itemPath);
      else if (g.l.length >= 2 && g.r.length >= 2) {
        // Duplicates on both sides compare as one atomic value.
        if (!valuesEqual(g.l, g.r)) modified.insert(itemPath);
      } else if (g.l.length >= 2) {
        if (g.r.length > 0) walk(undefined, g.r[0], itemSpath, itemPath);
        removed.insert(itemPath);
      } else {
        if (g.l.length > 0) walk(g.l[0], undefined, itemSpath, itemPath);
        added.insert(itemPath);
      }
    }
  };
  walk(lhs, rhs, [], []);
  return { removed: removed.build(), modified: modified.build(), added: added.build() };
}

/** Keys of both maps: the left's in order, then the right's new ones. */
export function zipKeys(l: Record<string, unknown>, r: Record<string, unknown>): string[] {
  return [...Object.keys(l), ...Object.keys(r).filter((k) => !(k in l))];
}
