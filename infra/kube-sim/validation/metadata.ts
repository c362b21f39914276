/**
 * ObjectMeta on create and update: apimachinery/pkg/api/validation/objectmeta.go
 * (ValidateObjectMetaAccessor, ValidateObjectMetaAccessorUpdate, ValidateAnnotations,
 * ValidateOwnerReferences, ValidateFinalizers) plus the core wrapper's standard-finalizer check
 * (pkg/apis/core/validation ValidateObjectMeta / validateKubeFinalizerName).
 */
import type { FieldError } from '../errors.ts';
import { bool, byteLength, type JsonObject, list, obj, objOrEmpty, str, stringMap } from './access.ts';
import { semanticEqual } from './equality.ts';
import { child, forbidden, index, invalid, type Path, required, tooLong } from './field.ts';
import { isQualifiedName, isValidPathSegmentName, type NameValidator, nameIsDNSLabel } from './names.ts';
import { validateLabels } from './selector.ts';

export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
export const FIELD_IMMUTABLE = 'field is immutable';
export const IS_NEGATIVE = 'must be greater than or equal to 0';

/** Finalizers kube-apiserver knows without a domain prefix (helper.IsStandardFinalizerName). */
const STANDARD_FINALIZERS = ['kubernetes', 'orphan', 'foregroundDeletion'];

/** ValidateNonnegativeField. */
export function validateNonnegative(value: number | undefined, path: Path): FieldError[] {
  return value !== undefined && value < 0 ? [invalid(path, value, IS_NEGATIVE)] : [];
}

/** ValidateImmutableField: reports the new value. */
export function validateImmutable(newValue: unknown, oldValue: unknown, path: Path): FieldError[] {
  return semanticEqual(newValue, oldValue) ? [] : [invalid(path, newValue ?? null, FIELD_IMMUTABLE)];
}

/** ValidateAnnotations: keys are qualified names, case-insensitively; total size ≤ 256 KiB. */
export function validateAnnotations(annotations: unknown, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const map = stringMap(annotations);
  let total = 0;
  for (const [k, v] of Object.entries(map)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, msg));
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** ValidateOwnerReferences: the four identifying fields, and a single controller. */
export function validateOwnerReferences(refs: unknown, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const items = list(refs);
  let firstController = '';
  for (const raw of items) {
    const ref = objOrEmpty(raw);
    const apiVersion = str(ref.apiVersion);
    // schema.FromAPIVersionAndKind: the version is what follows the last '/', or all of it.
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.lastIndexOf('/') + 1) : apiVersion;
    if (version.length === 0)
      errs.push(invalid(child(path, 'apiVersion'), apiVersion, 'version must not be empty'));
    if (str(ref.kind).length === 0)
      errs.push(invalid(child(path, 'kind'), str(ref.kind), 'must not be empty'));
    if (str(ref.name).length === 0)
      errs.push(invalid(child(path, 'name'), str(ref.name), 'must not be empty'));
    if (str(ref.uid).length === 0) errs.push(invalid(child(path, 'uid'), str(ref.uid), 'must not be empty'));
    if (apiVersion === 'v1' && str(ref.kind) === 'Event') {
      errs.push(invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (bool(ref.controller) === true) {
      const current = `${str(ref.kind)}/${str(ref.name)}`;
      if (firstController !== '') {
        errs.push(
          invalid(
            path,
            items,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/** ValidateFinalizers (apimachinery): qualified names, and orphan/foregroundDeletion exclusive. */
function validateFinalizerNames(finalizers: string[], path: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers) for (const msg of isQualifiedName(f)) errs.push(invalid(path, f, msg));
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(invalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** validateKubeFinalizerName: a finalizer without a domain must be one kube-apiserver knows. */
export function validateKubeFinalizerName(value: string, path: Path): FieldError[] {
  if (value.split('/').length === 1 && !STANDARD_FINALIZERS.includes(value)) {
    return [invalid(path, value, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

/** ValidateManagedFields: what clients may send back in metadata.managedFields. */
function validateManagedFields(entries: unknown, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  list(entries).forEach((raw, i) => {
    const entry = objOrEmpty(raw);
    const p = index(path, i);
    const operation = str(entry.operation);
    if (operation !== 'Apply' && operation !== 'Update') {
      errs.push(invalid(child(p, 'operation'), operation, 'must be `Apply` or `Update`'));
    }
    const fieldsType = str(entry.fieldsType);
    if (fieldsType.length > 0 && fieldsType !== 'FieldsV1') {
      errs.push(invalid(child(p, 'fieldsType'), fieldsType, 'must be `FieldsV1`'));
    }
    if (byteLength(str(entry.manager)) > 128) errs.push(tooLong(child(p, 'manager'), 128));
  });
  return errs;
}

export interface MetaOptions {
  /** Whether the kind is namespaced: metadata.namespace is then required, otherwise forbidden. */
  namespaced: boolean;
  /** The kind's name rule (ValidateNameFunc). */
  nameFn: NameValidator;
}

function metaOf(object: unknown): JsonObject {
  return objOrEmpty(obj(object)?.metadata);
}

/** The parts of ValidateObjectMetaAccessor shared by create and update (validateObjectMetaAccessorWithOptsCommon). */
function validateCommon(meta: JsonObject, namespaced: boolean, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = str(meta.namespace);
  if (namespaced) {
    if (namespace.length === 0) errs.push(required(child(path, 'namespace')));
    else
      for (const msg of nameIsDNSLabel(namespace, false))
        errs.push(invalid(child(path, 'namespace'), namespace, msg));
  } else if (namespace.length !== 0) {
    errs.push(forbidden(child(path, 'namespace'), 'not allowed on this type'));
  }
  const generation = meta.generation;
  if (typeof generation === 'number')
    errs.push(...validateNonnegative(generation, child(path, 'generation')));
  errs.push(...validateLabels(meta.labels, child(path, 'labels')));
  errs.push(...validateAnnotations(meta.annotations, child(path, 'annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, child(path, 'ownerReferences')));
  errs.push(...validateFinalizerNames(list(meta.finalizers).map(str), child(path, 'finalizers')));
  errs.push(...validateManagedFields(meta.managedFields, child(path, 'managedFields')));
  return errs;
}

/** core ValidateObjectMeta: the object's metadata on create. */
export function validateObjectMeta(
  object: unknown,
  opts: MetaOptions,
  path: Path = 'metadata',
): FieldError[] {
  const meta = metaOf(object);
  const errs: FieldError[] = [];
  const generateName = str(meta.generateName);
  if (generateName.length > 0) {
    for (const msg of opts.nameFn(generateName, true))
      errs.push(invalid(child(path, 'generateName'), generateName, msg));
  }
  const name = str(meta.name);
  if (name.length === 0) errs.push(required(child(path, 'name'), 'name or generateName is required'));
  else for (const msg of opts.nameFn(name, false)) errs.push(invalid(child(path, 'name'), name, msg));
  errs.push(...validateCommon(meta, opts.namespaced, path));
  list(meta.finalizers).forEach((f, i) => {
    errs.push(...validateKubeFinalizerName(str(f), index(child(path, 'finalizers'), i)));
  });
  return errs;
}

/**
 * core ValidateObjectMetaUpdate. resourceVersion, generation and creationTimestamp are not checked:
 * upstream's rest.BeforeUpdate restores generation and creationTimestamp (and an empty uid) from the
 * stored object, and the resourceVersion is settled before validation runs.
 */
export function validateObjectMetaUpdate(
  object: unknown,
  old: unknown,
  path: Path = 'metadata',
): FieldError[] {
  const meta = metaOf(object);
  const oldMeta = metaOf(old);
  const errs: FieldError[] = [];
  if (str(oldMeta.deletionTimestamp) !== '') {
    const oldFinalizers = new Set(list(oldMeta.finalizers).map(str));
    const extra = [...new Set(list(meta.finalizers).map(str))].filter((f) => !oldFinalizers.has(f)).sort();
    if (extra.length > 0) {
      const goList = `[]string{${extra.map((f) => JSON.stringify(f)).join(', ')}}`;
      errs.push(
        forbidden(
          child(path, 'finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goList}`,
        ),
      );
    }
  }
  errs.push(...validateImmutable(str(meta.name), str(oldMeta.name), child(path, 'name')));
  errs.push(...validateImmutable(str(meta.namespace), str(oldMeta.namespace), child(path, 'namespace')));
  if (str(meta.uid) !== '')
    errs.push(...validateImmutable(str(meta.uid), str(oldMeta.uid), child(path, 'uid')));
  if (str(oldMeta.deletionTimestamp) === '' && str(meta.deletionTimestamp) !== '') {
    errs.push(invalid(child(path, 'deletionTimestamp'), str(meta.deletionTimestamp), FIELD_IMMUTABLE));
  }
  errs.push(...validateLabels(meta.labels, child(path, 'labels')));
  errs.push(...validateAnnotations(meta.annotations, child(path, 'annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, child(path, 'ownerReferences')));
  errs.push(...validateManagedFields(meta.managedFields, child(path, 'managedFields')));
  list(meta.finalizers).forEach((f, i) => {
    errs.push(...validateKubeFinalizerName(str(f), index(child(path, 'finalizers'), i)));
  });
  return errs;
}

/**
 * What rest.BeforeUpdate's validateCommonFields checks on every update of every kind, before the
 * kind's own update validation: ObjectMeta with a URL-path-segment name rule, then the update rules.
 */
export function validateCommonUpdate(object: unknown, old: unknown, namespaced: boolean): FieldError[] {
  const meta = metaOf(object);
  const errs: FieldError[] = [];
  const name = str(meta.name);
  if (name.length === 0) errs.push(required('metadata.name', 'name or generateName is required'));
  else for (const msg of isValidPathSegmentName(name)) errs.push(invalid('metadata.name', name, msg));
  errs.push(...validateCommon(meta, namespaced, 'metadata'));
  errs.push(...validateObjectMetaUpdate(object, old));
  return errs;
}

/** ValidateTemplateObjectMeta-like check used for pod templates: labels and annotations. */
export function validateTemplateMeta(meta: unknown, path: Path): FieldError[] {
  const m = objOrEmpty(meta);
  return [
    ...validateLabels(m.labels, child(path, 'labels')),
    ...validateAnnotations(m.annotations, child(path, 'annotations')),
  ];
}
