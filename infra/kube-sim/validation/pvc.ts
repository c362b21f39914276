/**
 * PersistentVolumeClaims (pkg/apis/core/validation ValidatePersistentVolumeClaim,
 * ValidatePersistentVolumeClaimSpec, ValidatePersistentVolumeClaimUpdate, ...StatusUpdate).
 * RecoverVolumeExpansionFailure is on in 1.33; VolumeAttributesClass is off by default and not
 * modelled.
 */
import type { FieldError } from '../errors.ts';
import { clone } from '../types.ts';
import { type JsonObject, list, obj, objOrEmpty, str, stringMap } from './access.ts';
import { describeDiff, semanticEqual } from './equality.ts';
import { child, forbidden, invalid, key, notSupported, type Path, required } from './field.ts';
import { validateImmutable, validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { isDNS1123Subdomain, nameIsDNSLabel, nameIsDNSSubdomain } from './names.ts';
import { parseQuantity, quantityText } from './quantity.ts';
import { validateLabelSelector } from './selector.ts';

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];
const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** Access modes: supported values, and ReadWriteOncePod alone. */
export function validateAccessModes(modes: string[], path: Path): FieldError[] {
  const errs: FieldError[] = [];
  let rwop = false;
  let others = false;
  for (const mode of modes) {
    if (!ACCESS_MODES.includes(mode)) errs.push(notSupported(path, mode, ACCESS_MODES));
    if (mode === 'ReadWriteOncePod') rwop = true;
    else if (ACCESS_MODES.includes(mode)) others = true;
  }
  if (rwop && others) errs.push(forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

function validateDataSource(source: JsonObject, path: Path, withNamespace: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (str(source.name).length === 0) errs.push(required(child(path, 'name')));
  const kind = str(source.kind);
  if (kind.length === 0) errs.push(required(child(path, 'kind')));
  const apiGroup = str(source.apiGroup);
  if (apiGroup.length === 0 && kind !== 'PersistentVolumeClaim') {
    errs.push(invalid(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  if (apiGroup.length > 0)
    errs.push(...isDNS1123Subdomain(apiGroup).map((msg) => invalid(child(path, 'apiGroup'), apiGroup, msg)));
  const namespace = str(source.namespace);
  if (withNamespace && namespace.length > 0) {
    errs.push(
      ...nameIsDNSLabel(namespace, false).map((msg) => invalid(child(path, 'namespace'), namespace, msg)),
    );
  }
  return errs;
}

/** ValidatePersistentVolumeClaimSpec. */
export function validateClaimSpec(spec: JsonObject, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const modes = list(spec.accessModes).map(str);
  if (modes.length === 0)
    errs.push(required(child(path, 'accessModes'), 'at least 1 access mode is required'));
  if (obj(spec.selector)) errs.push(...validateLabelSelector(spec.selector, child(path, 'selector')));
  errs.push(...validateAccessModes(modes, child(path, 'accessModes')));
  const requests = objOrEmpty(objOrEmpty(spec.resources).requests);
  const storagePath = key(child(path, 'resources'), 'storage');
  if (!Object.hasOwn(requests, 'storage')) errs.push(required(storagePath));
  else {
    const value = parseQuantity(requests.storage);
    if (value !== undefined && value <= 0)
      errs.push(invalid(storagePath, quantityText(requests.storage), 'must be greater than zero'));
  }
  const className = spec.storageClassName;
  if (typeof className === 'string' && className.length > 0) {
    errs.push(
      ...nameIsDNSSubdomain(className, false).map((msg) =>
        invalid(child(path, 'storageClassName'), className, msg),
      ),
    );
  }
  const volumeMode = spec.volumeMode;
  if (typeof volumeMode === 'string' && !VOLUME_MODES.includes(volumeMode)) {
    errs.push(notSupported(child(path, 'volumeMode'), volumeMode, VOLUME_MODES));
  }
  const dataSource = obj(spec.dataSource);
  const dataSourceRef = obj(spec.dataSourceRef);
  if (dataSource) errs.push(...validateDataSource(dataSource, child(path, 'dataSource'), false));
  if (dataSourceRef) errs.push(...validateDataSource(dataSourceRef, child(path, 'dataSourceRef'), true));
  if (dataSourceRef && str(dataSourceRef.namespace).length > 0) {
    if (dataSource)
      errs.push(
        invalid(
          path,
          child(path, 'dataSource'),
          'may not be specified when dataSourceRef.namespace is specified',
        ),
      );
  } else if (dataSource && dataSourceRef) {
    const same =
      (dataSource.apiGroup ?? null) === (dataSourceRef.apiGroup ?? null) &&
      str(dataSource.kind) === str(dataSourceRef.kind) &&
      str(dataSource.name) === str(dataSourceRef.name);
    if (!same) errs.push(invalid(path, child(path, 'dataSource'), 'must match dataSourceRef'));
  }
  return errs;
}

export function validatePVC(pvc: unknown): FieldError[] {
  return [
    ...validateObjectMeta(pvc, { namespaced: true, nameFn: nameIsDNSSubdomain }),
    ...validateClaimSpec(objOrEmpty(objOrEmpty(pvc).spec), 'spec'),
  ];
}

/** ValidatePersistentVolumeClaimUpdate: only volumeName (once), class upgrades and bound-claim sizes change. */
export function validatePVCUpdate(pvc: unknown, old: unknown): FieldError[] {
  const errs = [...validateObjectMetaUpdate(pvc, old), ...validatePVC(pvc)];
  const next = objOrEmpty(pvc);
  const prev = objOrEmpty(old);
  const spec: JsonObject = clone(objOrEmpty(next.spec));
  const oldSpec: JsonObject = clone(objOrEmpty(prev.spec));
  if (str(oldSpec.volumeName) === '') oldSpec.volumeName = spec.volumeName;
  const annotations = stringMap(objOrEmpty(next.metadata).annotations);
  const oldAnnotations = stringMap(objOrEmpty(prev.metadata).annotations);
  const oldClassAnnotation = oldAnnotations[BETA_STORAGE_CLASS_ANNOTATION];
  const fromAnnotation =
    oldClassAnnotation !== undefined &&
    oldSpec.storageClassName === undefined &&
    typeof spec.storageClassName === 'string' &&
    spec.storageClassName === oldClassAnnotation &&
    (annotations[BETA_STORAGE_CLASS_ANNOTATION] === undefined ||
      annotations[BETA_STORAGE_CLASS_ANNOTATION] === oldClassAnnotation);
  if (fromAnnotation) {
    spec.storageClassName = undefined;
  } else {
    const newValue = annotations[BETA_STORAGE_CLASS_ANNOTATION] ?? '';
    if (newValue !== (oldClassAnnotation ?? '')) {
      errs.push(
        invalid(
          child('metadata', 'annotations', BETA_STORAGE_CLASS_ANNOTATION),
          newValue,
          'field is immutable',
        ),
      );
    }
    const fromNil =
      typeof spec.storageClassName === 'string' &&
      oldSpec.storageClassName === undefined &&
      (oldClassAnnotation === undefined || spec.storageClassName === oldClassAnnotation);
    if (fromNil) spec.storageClassName = oldSpec.storageClassName;
  }
  const bound = str(objOrEmpty(next.status).phase) === 'Bound';
  const requests = obj(objOrEmpty(spec.resources).requests);
  if (bound && requests) requests.storage = objOrEmpty(objOrEmpty(oldSpec.resources).requests).storage;
  if (bound && spec.volumeAttributesClassName !== undefined)
    spec.volumeAttributesClassName = oldSpec.volumeAttributesClassName;
  if (!semanticEqual(spec, oldSpec)) {
    const detail = `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${describeDiff('core.PersistentVolumeClaimSpec', oldSpec, spec)}`;
    errs.push(forbidden('spec', detail));
  }
  const newSize =
    parseQuantity(objOrEmpty(objOrEmpty(objOrEmpty(next.spec).resources).requests).storage) ?? 0;
  const oldSize =
    parseQuantity(objOrEmpty(objOrEmpty(objOrEmpty(prev.spec).resources).requests).storage) ?? 0;
  const statusSize = parseQuantity(objOrEmpty(objOrEmpty(prev.status).capacity).storage) ?? 0;
  if (newSize < oldSize && newSize <= statusSize) {
    errs.push(forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  errs.push(
    ...validateImmutable(objOrEmpty(next.spec).volumeMode, objOrEmpty(prev.spec).volumeMode, 'volumeMode'),
  );
  return errs;
}

/** ValidatePersistentVolumeClaimStatusUpdate (the `Spec` path is upstream's spelling). */
export function validatePVCStatusUpdate(pvc: unknown, old: unknown): FieldError[] {
  const errs = validateObjectMetaUpdate(pvc, old);
  const next = objOrEmpty(pvc);
  if (list(objOrEmpty(next.spec).accessModes).length === 0) errs.push(required('Spec.accessModes'));
  for (const [name, value] of Object.entries(objOrEmpty(objOrEmpty(next.status).capacity))) {
    const parsed = parseQuantity(value);
    if (parsed !== undefined && parsed < 0)
      errs.push(invalid(key('status.capacity', name), parsed, 'must be a valid resource quantity'));
  }
  return errs;
}
