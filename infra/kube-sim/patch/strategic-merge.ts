/**
 * Kubernetes strategic merge patch (`application/strategic-merge-patch+json`), ported from the
 * apply half of k8s.io/apimachinery/pkg/util/strategicpatch/patch.go (`StrategicMergeMapPatch` with
 * MergeParallelList and IgnoreUnmatchedNulls, as the apiserver calls it) and the error mapping of
 * k8s.io/apiserver/pkg/endpoints/handlers/patch.go (`strategicPatchObject`,
 * `interpretStrategicMergePatchError`).
 *
 * Upstream reads each field's `patchStrategy` / `patchMergeKey` struct tags; here they come from
 * ../schema/list-types.ts: a `map` list is `merge` by its mergeKey, a `set` list is `merge` without a
 * key (primitives), anything else has no strategy and is replaced whole. Maps always merge key by
 * key: upstream strategic merge has no notion of `+mapType=atomic` / `+structType=atomic` (those
 * are server-side-apply markers, and e.g. PodSpec.nodeSelector carries no patchStrategy tag), so
 * `isAtomicMap` is deliberately not consulted.
 *
 * Go mutates the original and the patch in place; this port does the same on private copies, so
 * the caller's objects are never touched. After the merge the apiserver decodes the map into the
 * typed object, which drops fields it does not know (directive keys left inside values the merge
 * took verbatim) and turns nulls into omitted zero values; `sanitize` and `stripDirectives` stand in
 * for that step so no directive key and no patch null survives in the result.
 */
import { StatusError, statusErrors } from '../errors.ts';
import { joinPath, listTypeAt } from '../schema/list-types.ts';
import { clone, isPlainObject } from '../types.ts';
import { jsonValueKind, setOwn } from './json-patch.ts';

type JsonMap = Record<string, unknown>;

const DIRECTIVE_MARKER = '$patch';
const DELETE_DIRECTIVE = 'delete';
const REPLACE_DIRECTIVE = 'replace';
const MERGE_DIRECTIVE = 'merge';
const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

/** Go's reflect kind of a decoded JSON value, as the merge compares types. */
type GoType = 'nil' | 'bool' | 'string' | 'int64' | 'float64' | 'slice' | 'map';

const MAP_TYPE = 'map[string]interface {}';
const SLICE_TYPE = '[]interface {}';

/** Applies a strategic merge patch to a copy of `doc` (an object of `kind`) and returns the copy. */
export function applyStrategicMergePatch(
  kind: string,
  doc: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const body: unknown = patch;
  // strategicPatchObject: a JSON `null` body unmarshals into a nil map and patches nothing.
  if (body === null || body === undefined) return clone(doc);
  if (!isPlainObject(body)) {
    // strategicPatchObject: kjson.Unmarshal(patchBytes, &map[string]interface{}) fails →
    // errors.NewBadRequest(err.Error()), no prefix (unlike the JSON and merge patch paths).
    throw statusErrors.badRequest(
      `json: cannot unmarshal ${jsonValueKind(body)} into Go value of type map[string]interface {}`,
    );
  }
  const merged = new StrategicMerger(kind).mergeMap(clone(doc), clone(body), []);
  return stripDirectives(merged) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Errors. patch.go's interpretStrategicMergePatchError maps the mergepatch sentinel errors; every
// other error is returned as is and the handler's ErrorToAPIStatus (responsewriters/status.go)
// makes a non-Status error a 500 with an empty (StatusReasonUnknown) reason and err.Error() as the
// message. kubernetes/kubernetes#140771 shows a user seeing exactly that for a missing merge key:
// "Error from server: map: map[hostPath:map[path:/var/lib/kubelet/pods]] does not contain declared
// merge key: name" (no reason in parentheses = empty reason).
// ---------------------------------------------------------------------------------------------

/** ErrBadJSONDoc, ErrBadPatchFormatFor{PrimitiveList,RetainKeys,SetElementOrderList} → 400 BadRequest. */
function badPatchFormat(message: string): StatusError {
  return statusErrors.badRequest(message);
}

/**
 * ErrNoListOfLists → errors.NewGenericServerResponse(422, …, err.Error(), 0, false), which keeps
 * its canned message and empty details (apimachinery errors.go).
 */
function unprocessable(cause: string): StatusError {
  const error = new StatusError(
    422,
    'Invalid',
    'the server rejected our request due to an error in our request',
    {},
  );
  error.cause = new Error(cause);
  return error;
}

/** Any other merge error: 500, empty reason, Go's error text. */
function mergeFailure(message: string): StatusError {
  return new StatusError(500, '', message);
}

/** mergepatch.ErrNoMergeKey. */
function noMergeKey(item: JsonMap, mergeKey: string): StatusError {
  return mergeFailure(`map: ${goValue(item)} does not contain declared merge key: ${mergeKey}`);
}

/** mergepatch.ErrBadArgType: `expected a map[string]interface {}, but received a string`. */
function badArgType(expected: string, actual: unknown): StatusError {
  return mergeFailure(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}

/** mergepatch.ErrBadPatchType. */
function badPatchType(directive: unknown, map: JsonMap): StatusError {
  return mergeFailure(`unknown patch type: ${goString(directive)} in map: ${goValue(map)}`);
}

// ---------------------------------------------------------------------------------------------
// The merge.
// ---------------------------------------------------------------------------------------------

class StrategicMerger {
  constructor(private readonly kind: string) {}

  /**
   * mergeMap. `path` is the field path of `original` from the object root (`[]` for list items),
   * used to look list strategies up. Both maps are mutated; the merged map is returned.
   */
  mergeMap(original: JsonMap, patch: JsonMap, path: string[]): JsonMap {
    if (Object.hasOwn(patch, DIRECTIVE_MARKER))
      return handleDirectiveInMergeMap(patch[DIRECTIVE_MARKER], patch);
    applyRetainKeysDirective(original, patch);
    // $setElementOrder lists (and the lists they order) are merged first and leave the patch.
    this.mergePatchIntoOriginal(original, patch, path);

    for (const [patchKey, patchValue] of Object.entries(patch)) {
      let key = patchKey;
      let isDeleteList = false;
      if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
        key = extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX) || patchKey;
        isDeleteList = true;
      }
      if (patchValue === null) {
        // null deletes the field (IgnoreUnmatchedNulls: a null for an absent field is dropped).
        delete original[key];
        continue;
      }
      if (!Object.hasOwn(original, key) || goType(original[key]) !== goType(patchValue)) {
        // A new field, or one whose type changes, takes the patch value (a deletion list never does).
        if (!isDeleteList) takePatchValue(original, key, patchValue);
        continue;
      }
      const current = original[key];
      const fieldPath = [...path, key];
      if (isPlainObject(current) && isPlainObject(patchValue)) {
        setOwn(original, key, this.mergeMap(current, patchValue, fieldPath));
      } else if (Array.isArray(current) && Array.isArray(patchValue)) {
        setOwn(original, key, this.mergeSliceHandler(current, patchValue, fieldPath, isDeleteList));
      } else {
        setOwn(original, key, patchValue);
      }
    }
    return original;
  }

  /**
   * mergePatchIntoOriginal: each `$setElementOrder/<field>` merges <field> now and then orders it:
   * $setElementOrder first, then patch order, then live order (server-only items keep their place
   * relative to the items around them).
   *
   * Not reproduced: in Go, when one patch both deletes (`$patch: delete`) and appends items of a
   * map list, the appends can land in the live list's backing array, so the live order consulted
   * below sees appended items in the deleted items' slots. That depends on slice capacities the
   * simulator cannot know; it only changes where server-only items fall among new ones.
   */
  private mergePatchIntoOriginal(original: JsonMap, patch: JsonMap, path: string[]): void {
    for (const directiveKey of Object.keys(patch)) {
      if (!directiveKey.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
      const order = patch[directiveKey];
      delete patch[directiveKey];
      if (!Array.isArray(order)) throw badArgType(SLICE_TYPE, order);
      const field = extractKey(directiveKey, SET_ELEMENT_ORDER_PREFIX);

      const foundOriginal = Object.hasOwn(original, field);
      const foundPatch = Object.hasOwn(patch, field);
      const originalList = asList(original[field], foundOriginal);
      const patchList = asList(patch[field], foundPatch);
      const { mergeKey } = this.strategyAt([...path, field]);
      validatePatchWithSetOrderList(patchList ?? [], order, mergeKey);

      let merged: unknown[];
      if (originalList && patchList)
        merged = this.mergeSliceHandler(originalList, patchList, [...path, field], false);
      else if (originalList) merged = originalList;
      else if (patchList) merged = sanitize(removeDirectives(patchList).value) as unknown[];
      else continue;

      const [inOrder, serverOnly] =
        mergeKey === '' ? partitionPrimitives(merged, order) : partitionMaps(merged, order, mergeKey);
      const elementType = sliceElementType([originalList ?? [], patchList ?? []]);
      setOwn(
        original,
        field,
        normalizeElementOrder(inOrder, serverOnly, order, originalList ?? [], mergeKey, elementType),
      );
      delete patch[field];
    }
  }

  /** mergeSliceHandler: `merge` lists (and every deletion list) merge; others take the patch list. */
  private mergeSliceHandler(
    original: unknown[],
    patch: unknown[],
    path: string[],
    isDeleteList: boolean,
  ): unknown[] {
    const { merge, mergeKey } = this.strategyAt(path);
    if (merge || isDeleteList) return this.mergeSlice(original, patch, path, mergeKey, isDeleteList);
    return sanitize(patch) as unknown[];
  }

  /** mergeSlice. */
  private mergeSlice(
    original: unknown[],
    patch: unknown[],
    path: string[],
    mergeKey: string,
    isDeleteList: boolean,
  ): unknown[] {
    if (original.length === 0 && patch.length === 0) return original;
    const elementType = sliceElementType([original, patch]);
    let base = original;
    let patchItems = patch;
    let merged: unknown[];
    if (elementType !== 'map') {
      if (isDeleteList) return deleteFromSlice(original, patch);
      merged = deduplicateScalars([...original, ...patch]);
    } else {
      if (mergeKey === '') {
        // Upstream names the field's schema here; the exact wording is not confirmed.
        throw mergeFailure(`cannot merge lists without merge key for ${joinPath(path)}`);
      }
      [base, patchItems] = mergeSliceWithSpecialElements(original, patch, mergeKey);
      merged = this.mergeSliceWithoutSpecialElements(base, patchItems, mergeKey, path);
    }
    const [inPatch, serverOnly] =
      mergeKey === '' ? partitionPrimitives(merged, patchItems) : partitionMaps(merged, patchItems, mergeKey);
    return normalizeElementOrder(inPatch, serverOnly, patchItems, base, mergeKey, elementType);
  }

  /**
   * mergeSliceWithoutSpecialElements: an item whose merge key matches one already in the list is
   * merged into it, any other item is appended. The search runs over the growing list, so two patch
   * items with one key merge together, but `base` keeps the live order for the sort that follows.
   */
  private mergeSliceWithoutSpecialElements(
    base: unknown[],
    patch: unknown[],
    mergeKey: string,
    path: string[],
  ): unknown[] {
    const merged = [...base];
    for (const item of patch) {
      const patchItem = item as JsonMap;
      if (!Object.hasOwn(patchItem, mergeKey)) throw noMergeKey(patchItem, mergeKey);
      const index = findMapInSlice(merged, mergeKey, patchItem[mergeKey]);
      if (index >= 0) merged[index] = this.mergeMap(merged[index] as JsonMap, patchItem, [...path, '[]']);
      else merged.push(sanitize(patchItem));
    }
    return merged;
  }

  /** The list's patch strategy, from the shared schema (upstream: the field's struct tags). */
  private strategyAt(path: string[]): { merge: boolean; mergeKey: string } {
    const list = listTypeAt(this.kind, path);
    if (list.type === 'map') return { merge: true, mergeKey: list.mergeKey };
    return { merge: list.type === 'set', mergeKey: '' };
  }
}

/** The original or patch side of a $setElementOrder field, when present: it must be a list. */
function asList(value: unknown, found: boolean): unknown[] | undefined {
  if (!found) return undefined;
  if (!Array.isArray(value)) throw badArgType(SLICE_TYPE, value);
  return value;
}

/** handleDirectiveInMergeMap: `replace` keeps the patch map as is, `delete` empties the map. */
function handleDirectiveInMergeMap(directive: unknown, patch: JsonMap): JsonMap {
  if (directive === REPLACE_DIRECTIVE) {
    delete patch[DIRECTIVE_MARKER];
    return sanitize(patch) as JsonMap;
  }
  if (directive === DELETE_DIRECTIVE) return {};
  // `$patch: merge` on a map is not accepted either: only replace and delete are.
  throw badPatchType(directive, patch);
}

/**
 * applyRetainKeysDirective: `$retainKeys` lists the fields to keep; other fields of the original
 * are cleared, and a non-null patch field missing from the list is a malformed patch. Upstream
 * honours the directive wherever it appears, not only in fields tagged retainKeys.
 */
function applyRetainKeysDirective(original: JsonMap, patch: JsonMap): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const retained = patch[RETAIN_KEYS_DIRECTIVE];
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (!Array.isArray(retained)) throw badPatchFormat('invalid patch format of retainKeys');
  const keep = new Set(retained);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) continue;
    if (key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!keep.has(key)) throw badPatchFormat('invalid patch format of retainKeys');
  }
  for (const key of Object.keys(original)) {
    if (!keep.has(key)) delete original[key];
  }
}

/** extractKey: `$setElementOrder/containers` → `containers`; a missing `/` is a malformed patch. */
function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw badPatchFormat(
      prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX
        ? 'invalid patch format of primitive list'
        : 'invalid patch format of setElementOrder list',
    );
  }
  return key.slice(slash + 1);
}

/**
 * A patch value stored where the original had nothing (or a value of another type):
 * discardNullValuesFromPatch, then removeDirectives, which drops every map holding `$patch`.
 */
function takePatchValue(original: JsonMap, key: string, value: unknown): void {
  discardNullValues(value);
  const result = removeDirectives(value);
  if (result.keep) setOwn(original, key, sanitize(result.value));
  else delete original[key];
}

/** discardNullValuesFromPatch: removes null map members at any depth (null list elements stay). */
function discardNullValues(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) discardNullValues(item);
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (item === null) delete value[key];
      else discardNullValues(item);
    }
  }
}

/** removeDirectives: a map with `$patch` (whatever its value) is dropped, from maps and lists. */
function removeDirectives(value: unknown): { value: unknown; keep: boolean } {
  if (Array.isArray(value)) {
    const kept: unknown[] = [];
    for (const item of value) {
      const result = removeDirectives(item);
      if (result.keep) kept.push(result.value);
    }
    return { value: kept, keep: true };
  }
  if (isPlainObject(value)) {
    if (Object.hasOwn(value, DIRECTIVE_MARKER)) return { value: undefined, keep: false };
    for (const [key, item] of Object.entries(value)) {
      const result = removeDirectives(item);
      if (result.keep) setOwn(value, key, result.value);
      else delete value[key];
    }
  }
  return { value, keep: true };
}

function isDirectiveKey(key: string): boolean {
  return (
    key === DIRECTIVE_MARKER ||
    key === RETAIN_KEYS_DIRECTIVE ||
    key.startsWith(SET_ELEMENT_ORDER_PREFIX) ||
    key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)
  );
}

/**
 * Stands in for the typed decode after the merge for a value upstream stores verbatim (an appended
 * list item, a replaced list, a `$patch: replace` map): unknown directive fields are dropped and
 * null fields become omitted zero values. Mutates and returns `value`.
 */
function sanitize(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (const item of value) sanitize(item);
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (item === null || isDirectiveKey(key)) delete value[key];
      else sanitize(item);
    }
  }
  return value;
}

/** Final guarantee that no directive key is left anywhere in the result. */
function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (const item of value) stripDirectives(item);
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (isDirectiveKey(key)) delete value[key];
      else stripDirectives(item);
    }
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// List merging helpers (pure functions of their arguments, as upstream's are).
// ---------------------------------------------------------------------------------------------

/**
 * mergeSliceWithSpecialElements: `{$patch: delete, <key>: v}` removes every item with that key;
 * `{$patch: replace}` makes the patch's other items the whole list; `$patch: merge` and unknown
 * values are errors. Returns the new base list and the patch items without directives.
 */
function mergeSliceWithSpecialElements(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
): [unknown[], unknown[]] {
  const plain: unknown[] = [];
  let base = original;
  let replace = false;
  for (const item of patch) {
    const patchItem = item as JsonMap;
    if (!Object.hasOwn(patchItem, DIRECTIVE_MARKER)) {
      plain.push(patchItem);
      continue;
    }
    const directive = patchItem[DIRECTIVE_MARKER];
    if (directive === DELETE_DIRECTIVE) {
      if (!Object.hasOwn(patchItem, mergeKey)) throw noMergeKey(patchItem, mergeKey);
      base = deleteMatchingEntries(base, mergeKey, patchItem[mergeKey]);
    } else if (directive === REPLACE_DIRECTIVE) {
      replace = true;
    } else if (directive === MERGE_DIRECTIVE) {
      throw mergeFailure('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, patchItem);
    }
  }
  if (replace) return [sanitize(plain) as unknown[], []];
  return [base, plain];
}

/** deleteMatchingEntries: every item whose merge key equals `value`. */
function deleteMatchingEntries(list: unknown[], mergeKey: string, value: unknown): unknown[] {
  let remaining = list;
  for (let index = findMapInSlice(remaining, mergeKey, value); index >= 0; ) {
    remaining = [...remaining.slice(0, index), ...remaining.slice(index + 1)];
    index = findMapInSlice(remaining, mergeKey, value);
  }
  return remaining;
}

/** findMapInSliceBasedOnKeyValue: index of the first map whose `key` equals `value`, else -1. */
function findMapInSlice(list: unknown[], key: string, value: unknown): number {
  for (const [index, item] of list.entries()) {
    if (!isPlainObject(item)) throw mergeFailure(`value for key ${index} is not a map.`);
    if (Object.hasOwn(item, key) && item[key] === value) return index;
  }
  return -1;
}

/** deleteFromSlice: `$deleteFromPrimitiveList` removes every occurrence of each listed value. */
function deleteFromSlice(current: unknown[], toDelete: unknown[]): unknown[] {
  const doomed = new Set(toDelete);
  return current.filter((item) => !doomed.has(item));
}

/**
 * deduplicateScalars, verbatim: a duplicate is overwritten by the last element, so removing one
 * can move the tail element forward ([a b a c] → [a b c], [a a b c] → [a c b]).
 */
function deduplicateScalars(items: unknown[]): unknown[] {
  const s = [...items];
  let last = s.length - 1;
  for (let i = 0; i < last; i++) {
    for (let j = i + 1; j <= last; j++) {
      if (s[i] === s[j]) {
        s[j] = s[last];
        s.length = last;
        last--;
        j--;
      }
    }
  }
  return s;
}

/** partitionPrimitivesByPresentInList: [items present in `by`, the rest], order kept. */
function partitionPrimitives(items: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const present = new Set(by);
  return [items.filter((item) => present.has(item)), items.filter((item) => !present.has(item))];
}

/** partitionMapsByPresentInList, by merge key. */
function partitionMaps(items: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inBy: unknown[] = [];
  const rest: unknown[] = [];
  for (const item of items) {
    if (!isPlainObject(item)) throw badArgType(MAP_TYPE, item);
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    if (findMapInSlice(by, mergeKey, item[mergeKey]) >= 0) inBy.push(item);
    else rest.push(item);
  }
  return [inBy, rest];
}

/**
 * normalizeElementOrder: sorts the patch items by `patchOrder` and the server-only items by
 * `serverOrder`, then interleaves them (mergeSortedSlice).
 */
function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  elementType: GoType,
): unknown[] {
  const sortedPatch = normalizeSliceOrder(patchItems, patchOrder, mergeKey, elementType);
  const sortedServer = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, elementType);
  return mergeSortedSlice(sortedServer, sortedPatch, serverOrder, mergeKey, elementType);
}

/**
 * normalizeSliceOrder: stable sort by position in `order`; for maps, every item (and every order
 * entry) needs the merge key and `$patch: delete` items go last. Upstream's comparator also
 * answers "less" when an item is missing from `order`; on the paths that reach here every item is
 * present, so a plain stable sort gives the same result.
 */
function normalizeSliceOrder(
  toSort: unknown[],
  order: unknown[],
  mergeKey: string,
  elementType: GoType,
): unknown[] {
  let items = toSort;
  let toDelete: unknown[] = [];
  if (elementType === 'map') {
    validateMergeKeyInLists(mergeKey, [toSort, order]);
    [items, toDelete] = extractToDeleteItems(toSort);
  }
  const position = (item: unknown) => indexOf(order, item, mergeKey, elementType);
  const sorted = [...items].sort((a, b) => {
    const pa = position(a);
    const pb = position(b);
    return pa >= 0 && pb >= 0 ? pa - pb : 0;
  });
  return [...sorted, ...toDelete];
}

/**
 * mergeSortedSlice: walks both sorted lists; a server-only item goes first only when both items are
 * in the live list and it came first there. So a new patch item is placed before the remaining
 * server-only items: patching [a] with [b] gives [b, a].
 */
function mergeSortedSlice(
  left: unknown[],
  right: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  elementType: GoType,
): unknown[] {
  const result: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) result.push(right[j++]);
    else if (j >= right.length) result.push(left[i++]);
    else {
      const li = indexOf(serverOrder, left[i], mergeKey, elementType);
      const ri = indexOf(serverOrder, right[j], mergeKey, elementType);
      if (li >= 0 && ri >= 0 && li < ri) result.push(left[i++]);
      else result.push(right[j++]);
    }
  }
  return result;
}

/** index: position of `item` in `list`, by merge key for maps, by value otherwise. */
function indexOf(list: unknown[], item: unknown, mergeKey: string, elementType: GoType): number {
  const identity = (entry: unknown) =>
    elementType === 'map' ? (isPlainObject(entry) ? (entry[mergeKey] ?? null) : null) : entry;
  const wanted = identity(item);
  return list.findIndex((entry) => identity(entry) === wanted);
}

/** validateMergeKeyInLists. */
function validateMergeKeyInLists(mergeKey: string, lists: unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isPlainObject(item)) throw badArgType(MAP_TYPE, item);
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    }
  }
}

/** extractToDeleteItems: [items to keep, items with `$patch: delete`]. */
function extractToDeleteItems(list: unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const toDelete: unknown[] = [];
  for (const item of list) {
    if (!isPlainObject(item)) throw badArgType(MAP_TYPE, item);
    if (item[DIRECTIVE_MARKER] === DELETE_DIRECTIVE) toDelete.push(item);
    else keep.push(item);
  }
  return [keep, toDelete];
}

/**
 * validatePatchWithSetOrderList: the patch items (deletions and directive items aside) must appear
 * in the $setElementOrder list, in the same relative order.
 */
function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey === '' ? patchList : extractToDeleteItems(patchList)[0];
  let patchIndex = 0;
  let orderIndex = 0;
  while (patchIndex < items.length && orderIndex < order.length) {
    const item = items[patchIndex];
    if (isPlainObject(item) && Object.hasOwn(item, DIRECTIVE_MARKER)) {
      patchIndex++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[orderIndex], mergeKey)) patchIndex++;
    orderIndex++;
  }
  if (patchIndex < items.length && orderIndex >= order.length) {
    // Text as in the kubernetes/kubernetes copy read; newer releases may have reworded it.
    throw mergeFailure(
      `The order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goValue(order)}\n`,
    );
  }
}

/** mergeKeyValueEqual: primitives by value, maps by their merge key (which both must have). */
function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return left === right;
  if (!isPlainObject(left)) throw badArgType(MAP_TYPE, left);
  if (!isPlainObject(right)) throw badArgType(MAP_TYPE, right);
  if (!Object.hasOwn(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!Object.hasOwn(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

/**
 * sliceElementType: all items of all the lists share one type, which is not a list. A first item
 * that is null makes upstream dereference a nil reflect.Type (a panic, answered with a 500); that
 * message is an approximation.
 */
function sliceElementType(lists: unknown[][]): GoType {
  let previous: GoType | undefined;
  for (const list of lists) {
    for (const item of list) {
      const current = goType(item);
      if (previous === undefined) {
        if (current === 'nil')
          throw mergeFailure('runtime error: invalid memory address or nil pointer dereference');
        if (current === 'slice') throw unprocessable('lists of lists are not supported');
        previous = current;
      } else if (current !== previous) {
        throw mergeFailure(`list element types are not identical: ${goValue(lists)}`);
      }
    }
  }
  if (previous === undefined) throw mergeFailure('no elements in any of the given slices');
  return previous;
}

// ---------------------------------------------------------------------------------------------
// Go type names and fmt formatting, for error messages that read as upstream's.
// ---------------------------------------------------------------------------------------------

/** The Go type a JSON value decodes to (integers as int64, as UnmarshalCaseSensitivePreserveInts does). */
function goType(value: unknown): GoType {
  if (value === null || value === undefined) return 'nil';
  if (Array.isArray(value)) return 'slice';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return 'map';
}

/** reflect.TypeOf(v) as `%s` prints it. */
function goTypeName(value: unknown): string {
  const type = goType(value);
  if (type === 'nil') return '%!s(<nil>)';
  if (type === 'slice') return SLICE_TYPE;
  if (type === 'map') return MAP_TYPE;
  return type;
}

/** fmt `%v`: map[a:1 b:x] with sorted keys, [a b] for slices, <nil> for nil. */
function goValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((key) => `${key}:${goValue(value[key])}`).join(' ')}]`;
  }
  if (typeof value === 'number') return goNumber(value);
  return String(value);
}

/** fmt `%s` of a top-level interface value: strings as is, other kinds flagged as Go does. */
function goString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (typeof value === 'number' || typeof value === 'boolean') {
    return `%!s(${goType(value)}=${goValue(value)})`;
  }
  return goValue(value);
}

/**
 * int64 in decimal; float64 as fmt's %v, i.e. strconv 'g' with the shortest digits, which switches
 * to exponent form below 1e-4 and from 1e6 (1234567.5 → 1.2345675e+06).
 */
function goNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(value);
}
