/**
 * PersistentVolumes (pkg/apis/core/validation ValidatePersistentVolumeSpec,
 * ValidatePersistentVolumeUpdate): capacity, access modes, exactly one volume source (checked in
 * upstream's order, looked into for hostPath, nfs, local and csi), reclaim policy, volume mode.
 */
import type { FieldError } from '../errors.ts';
import { type JsonObject, list, obj, objOrEmpty, str } from './access.ts';
import { describeDiff, semanticEqual } from './equality.ts';
import { child, forbidden, invalid, key, notSupported, type Path, required } from './field.ts';
import {
  FIELD_IMMUTABLE,
  validateImmutable,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from './metadata.ts';
import { isDNS1123Subdomain, nameIsDNSSubdomain } from './names.ts';
import { VOLUME_MODES, validateAccessModes } from './pvc.ts';
import { parseQuantity, quantityText } from './quantity.ts';
import { validatePathNoBacksteps } from './volumes.ts';

const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];

/** Persistent volume sources in validation order; cephfs reports its Forbidden error as `cephFS`. */
const PV_SOURCES: ReadonlyArray<readonly [json: string, errorPath: string]> = [
  ['hostPath', 'hostPath'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'],
  ['nfs', 'nfs'],
  ['rbd', 'rbd'],
  ['quobyte', 'quobyte'],
  ['cephfs', 'cephFS'],
  ['iscsi', 'iscsi'],
  ['cinder', 'cinder'],
  ['fc', 'fc'],
  ['flexVolume', 'flexVolume'],
  ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk'],
  ['scaleIO', 'scaleIO'],
  ['local', 'local'],
  ['storageos', 'storageos'],
  ['csi', 'csi'],
];

function validateSourceContent(json: string, source: JsonObject, spec: JsonObject, path: Path): FieldError[] {
  switch (json) {
    case 'hostPath':
    case 'local': {
      const target = str(source.path);
      const errs =
        target === ''
          ? [required(child(path, 'path'))]
          : validatePathNoBacksteps(target, child(path, 'path'));
      if (json === 'local' && !obj(spec.nodeAffinity))
        errs.push(required('spec.nodeAffinity', 'Local volume requires node affinity'));
      return errs;
    }
    case 'nfs': {
      const errs: FieldError[] = [];
      if (str(source.server) === '') errs.push(required(child(path, 'server')));
      if (str(source.path) === '') errs.push(required(child(path, 'path')));
      if (!str(source.path).startsWith('/'))
        errs.push(invalid(child(path, 'path'), str(source.path), 'must be an absolute path'));
      return errs;
    }
    case 'csi': {
      const errs: FieldError[] = [];
      const driver = str(source.driver);
      if (driver === '') errs.push(required(child(path, 'driver')));
      if (driver.length > 63)
        errs.push({
          type: 'FieldValueTooLong',
          field: child(path, 'driver'),
          detail: 'may not be more than 63 bytes',
        });
      errs.push(
        ...isDNS1123Subdomain(driver.toLowerCase()).map((msg) => invalid(child(path, 'driver'), driver, msg)),
      );
      if (str(source.volumeHandle) === '') errs.push(required(child(path, 'volumeHandle')));
      return errs;
    }
    default:
      return [];
  }
}

/** ValidatePersistentVolumeSpec (not inline). */
function validatePVSpec(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const modes = list(spec.accessModes).map(str);
  if (modes.length === 0) errs.push(required('spec.accessModes'));
  errs.push(...validateAccessModes(modes, 'spec.accessModes'));
  const capacity = objOrEmpty(spec.capacity);
  const names = Object.keys(capacity);
  if (names.length === 0) errs.push(required('spec.capacity'));
  if (!names.includes('storage') || names.length > 1)
    errs.push(notSupported('spec.capacity', capacity, ['storage']));
  for (const [name, value] of Object.entries(capacity)) {
    const parsed = parseQuantity(value);
    if (parsed === undefined) continue;
    if (parsed < 0)
      errs.push(invalid(key('spec.capacity', name), parsed, 'must be a valid resource quantity'));
    if (parsed <= 0)
      errs.push(invalid(key('spec.capacity', name), quantityText(value), 'must be greater than zero'));
  }
  const policy = str(spec.persistentVolumeReclaimPolicy);
  if (policy.length > 0 && !RECLAIM_POLICIES.includes(policy)) {
    errs.push(notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  }
  if (
    spec.nodeAffinity !== undefined &&
    spec.nodeAffinity !== null &&
    !obj(objOrEmpty(spec.nodeAffinity).required)
  ) {
    errs.push(required('spec.nodeAffinity.required', 'must specify required node constraints'));
  }
  let count = 0;
  for (const [json, errorPath] of PV_SOURCES) {
    const source = obj(spec[json]);
    if (!source) continue;
    if (count > 0 && json !== 'flexVolume') {
      errs.push(forbidden(child('spec', errorPath), 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    errs.push(...validateSourceContent(json, source, spec, child('spec', json)));
  }
  if (count === 0) errs.push(required('spec', 'must specify a volume type'));
  const hostPath = obj(spec.hostPath);
  if (
    hostPath &&
    str(hostPath.path).replace(/\/+$/, '') === '' &&
    str(hostPath.path).startsWith('/') &&
    policy === 'Recycle'
  ) {
    errs.push(
      forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"),
    );
  }
  const className = str(spec.storageClassName);
  if (className.length > 0) {
    errs.push(
      ...nameIsDNSSubdomain(className, false).map((msg) => invalid('spec.storageClassName', className, msg)),
    );
  }
  const volumeMode = spec.volumeMode;
  if (typeof volumeMode === 'string' && !VOLUME_MODES.includes(volumeMode)) {
    errs.push(notSupported('spec.volumeMode', volumeMode, VOLUME_MODES));
  }
  return errs;
}

export function validatePV(pv: unknown): FieldError[] {
  return [
    ...validateObjectMeta(pv, { namespaced: false, nameFn: nameIsDNSSubdomain }),
    ...validatePVSpec(objOrEmpty(objOrEmpty(pv).spec)),
  ];
}

/** The volume source part of a PV spec (PersistentVolumeSource, inlined in JSON). */
function sourceOf(spec: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [json] of PV_SOURCES) if (spec[json] !== undefined) out[json] = spec[json];
  return out;
}

/** ValidatePersistentVolumeUpdate (after ValidatePersistentVolume, as the strategy calls both). */
export function validatePVUpdate(pv: unknown, old: unknown): FieldError[] {
  const spec = objOrEmpty(objOrEmpty(pv).spec);
  const oldSpec = objOrEmpty(objOrEmpty(old).spec);
  const errs = [...validateObjectMetaUpdate(pv, old), ...validatePV(pv)];
  const source = sourceOf(spec);
  const oldSource = sourceOf(oldSpec);
  // A CSI volume may gain a controllerExpandSecretRef.
  const oldCSI = obj(oldSource.csi);
  const newCSI = obj(source.csi);
  if (oldCSI && newCSI && oldCSI.controllerExpandSecretRef === undefined) {
    source.csi = { ...newCSI, controllerExpandSecretRef: undefined };
  }
  if (!semanticEqual(source, oldSource)) {
    const detail = `spec.persistentvolumesource is immutable after creation\n${describeDiff('core.PersistentVolumeSource', oldSource, source)}`;
    errs.push(forbidden('spec.persistentvolumesource', detail));
  }
  errs.push(...validateImmutable(spec.volumeMode, oldSpec.volumeMode, 'volumeMode'));
  if (obj(oldSpec.nodeAffinity) && !semanticEqual(spec.nodeAffinity, oldSpec.nodeAffinity)) {
    errs.push(
      invalid(
        'nodeAffinity',
        spec.nodeAffinity ?? null,
        `${FIELD_IMMUTABLE}, except for updating from beta label to GA`,
      ),
    );
  }
  return errs;
}
