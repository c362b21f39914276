/**
 * RFC 7386 JSON merge patch (`application/merge-patch+json`) as kube-apiserver applies it:
 * k8s.io/apiserver/pkg/endpoints/handlers/patch.go (`jsonPatcher.applyJSPatch`, MergePatchType)
 * calling gopkg.in/evanphx/json-patch.v4 `MergePatch` (merge.go: mergeDocs / merge / pruneNulls).
 *
 * Objects merge key by key, `null` deletes a key, anything else (arrays included) replaces whole.
 * evanphx's pruning differs slightly from the RFC and is copied: a value written where the document
 * had no object (new key, null, scalar, array) loses its nested nulls, including null array
 * elements; a non-object written over an existing object is taken as is.
 *
 * Pure: neither argument is mutated.
 */
import { StatusError, statusErrors } from '../errors.ts';
import { clone, isPlainObject } from '../types.ts';
import { jsonValueKind, setOwn } from './json-patch.ts';

/** Merges `patch` into a copy of `doc` and returns the copy. */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  checkPatch(patch);
  if (doc === null || doc === undefined) {
    // MergePatch returns errBadJSONDoc, which patch.go passes on as a plain error; the handler's
    // ErrorToAPIStatus turns non-Status errors into 500 with an empty reason (responsewriters/status.go).
    throw new StatusError(500, '', 'Invalid JSON Document');
  }
  if (!isPlainObject(doc)) {
    // "Not an error, just not a doc, so we turn straight into the patch" (merge.go).
    return pruneNulls(clone(patch));
  }
  const result = clone(doc);
  mergeObjects(result, patch);
  return result;
}

/**
 * With fieldValidation Warn (the default) or Strict, patch.go first runs
 * `kjson.UnmarshalStrict(patchBytes, &map[string]interface{})`; a body that is not an object fails
 * there → 400 BadRequest "error decoding patch: json: cannot unmarshal array into Go value of type
 * map[string]interface {}". `null` passes that step and then hits evanphx's errBadJSONPatch, which
 * patch.go maps to 400 BadRequest "Invalid JSON Patch" (kubernetes/kubernetes#97243 made it a 400).
 * Not modelled: with fieldValidation=Ignore an array body instead becomes the new object.
 */
function checkPatch(patch: unknown): asserts patch is Record<string, unknown> {
  if (patch === null || patch === undefined) throw statusErrors.badRequest('Invalid JSON Patch');
  if (!isPlainObject(patch)) {
    throw statusErrors.badRequest(
      `error decoding patch: json: cannot unmarshal ${jsonValueKind(patch)} into Go value of type map[string]interface {}`,
    );
  }
}

/** mergeDocs: null deletes, a new (or null) key takes the pruned patch value, else merge. */
function mergeObjects(doc: Record<string, unknown>, patch: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete doc[key];
      continue;
    }
    const current = Object.hasOwn(doc, key) ? doc[key] : null;
    if (current === null) setOwn(doc, key, pruneNulls(clone(value)));
    else setOwn(doc, key, mergeValue(current, value));
  }
}

/** merge(cur, patch): only object-into-object recurses; other pairs take the patch value. */
function mergeValue(current: unknown, patch: unknown): unknown {
  if (!isPlainObject(current)) return pruneNulls(clone(patch));
  if (!isPlainObject(patch)) return clone(patch);
  mergeObjects(current, patch);
  return current;
}

/** pruneNulls: drops null object members and null array elements, recursively (in place). */
function pruneNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map(pruneNulls);
  if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (item === null) delete value[key];
      else setOwn(value, key, pruneNulls(item));
    }
  }
  return value;
}
