/**
 * Pod volumes (pkg/apis/core/validation ValidateVolumes / validateVolumeSource and the source
 * validators kube-sim's clients use: emptyDir, hostPath, secret, configMap, persistentVolumeClaim,
 * nfs, downwardAPI, projected, csi, ephemeral, image). Other sources are counted (exactly one per
 * volume) but not looked into.
 */
import type { FieldError } from '../errors.ts';
import { type JsonObject, list, num, obj, objOrEmpty, str } from './access.ts';
import { child, duplicate, forbidden, index, invalid, notSupported, type Path, required } from './field.ts';
import { isConfigMapKey, isDNS1123Label, nameIsDNSSubdomain } from './names.ts';

const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';

/**
 * The volume sources in the order validateVolumeSource visits them, with the path segment its
 * "may not specify more than 1 volume type" error uses (upstream spells two of them differently).
 */
const SOURCES: ReadonlyArray<readonly [json: string, errorPath: string]> = [
  ['emptyDir', 'emptyDir'],
  ['hostPath', 'hostPath'],
  ['gitRepo', 'gitRepo'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['secret', 'secret'],
  ['nfs', 'nfs'],
  ['iscsi', 'iscsi'],
  ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'],
  ['persistentVolumeClaim', 'persistentVolumeClaim'],
  ['rbd', 'rbd'],
  ['cinder', 'cinder'],
  ['cephfs', 'cephFS'],
  ['quobyte', 'quobyte'],
  ['downwardAPI', 'downwarAPI'],
  ['fc', 'fc'],
  ['flexVolume', 'flexVolume'],
  ['configMap', 'configMap'],
  ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk'],
  ['storageos', 'storageos'],
  ['projected', 'projected'],
  ['scaleIO', 'scaleIO'],
  ['csi', 'csi'],
  ['ephemeral', 'ephemeral'],
  ['image', 'image'],
];

const HOST_PATH_TYPES = [
  '',
  'BlockDevice',
  'CharDevice',
  'Directory',
  'DirectoryOrCreate',
  'File',
  'FileOrCreate',
  'Socket',
];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

/** validatePathNoBacksteps. */
export function validatePathNoBacksteps(target: string, path: Path): FieldError[] {
  return target.replaceAll('\\', '/').split('/').includes('..')
    ? [invalid(path, target, "must not contain '..'")]
    : [];
}

/** validateLocalDescendingPath: relative and without '..' elements. */
export function validateLocalDescendingPath(target: string, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(invalid(path, target, 'must be a relative path'));
  errs.push(...validatePathNoBacksteps(target, path));
  return errs;
}

/** ValidateLocalNonReservedPath. */
function validateLocalNonReservedPath(target: string, path: Path): FieldError[] {
  const errs = validateLocalDescendingPath(target, path);
  if (target.startsWith('..') && !target.startsWith('../'))
    errs.push(invalid(path, target, "must not start with '..'"));
  return errs;
}

function validateMode(mode: unknown, path: Path): FieldError[] {
  const m = num(mode);
  return m !== undefined && (m > 0o777 || m < 0) ? [invalid(path, m, FILE_MODE_ERROR)] : [];
}

/** validateKeyToPath. */
function validateKeyToPath(item: JsonObject, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (str(item.key).length === 0) errs.push(required(child(path, 'key')));
  if (str(item.path).length === 0) errs.push(required(child(path, 'path')));
  errs.push(...validateLocalNonReservedPath(str(item.path), child(path, 'path')));
  errs.push(...validateMode(item.mode, child(path, 'mode')));
  return errs;
}

function validateItems(items: unknown, path: Path): FieldError[] {
  return list(items).flatMap((item, i) => validateKeyToPath(objOrEmpty(item), index(path, i)));
}

function validateSecretSource(source: JsonObject, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (str(source.secretName).length === 0) errs.push(required(child(path, 'secretName')));
  errs.push(...validateMode(source.defaultMode, child(path, 'defaultMode')));
  errs.push(...validateItems(source.items, child(path, 'items')));
  return errs;
}

function validateConfigMapSource(source: JsonObject, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (str(source.name).length === 0) errs.push(required(child(path, 'name')));
  errs.push(...validateMode(source.defaultMode, child(path, 'defaultMode')));
  errs.push(...validateItems(source.items, child(path, 'items')));
  return errs;
}

function validateHostPath(source: JsonObject, path: Path): FieldError[] {
  const target = str(source.path);
  if (target.length === 0) return [required(child(path, 'path'))];
  const errs = validatePathNoBacksteps(target, child(path, 'path'));
  const type = source.type;
  if (typeof type === 'string' && !HOST_PATH_TYPES.includes(type)) {
    errs.push(notSupported(child(path, 'type'), type, HOST_PATH_TYPES));
  }
  return errs;
}

function validateNFS(source: JsonObject, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (str(source.server).length === 0) errs.push(required(child(path, 'server')));
  if (str(source.path).length === 0) errs.push(required(child(path, 'path')));
  if (!str(source.path).startsWith('/'))
    errs.push(invalid(child(path, 'path'), str(source.path), 'must be an absolute path'));
  return errs;
}

/** validateDownwardAPIVolumeSource: items are validated on the volume's path, as upstream does. */
function validateDownwardAPI(source: JsonObject, path: Path): FieldError[] {
  const errs = validateMode(source.defaultMode, child(path, 'defaultMode'));
  for (const raw of list(source.items)) {
    const file = objOrEmpty(raw);
    if (str(file.path).length === 0) errs.push(required(child(path, 'path')));
    errs.push(...validateLocalNonReservedPath(str(file.path), child(path, 'path')));
    if (!file.fieldRef && !file.resourceFieldRef) {
      errs.push(required(path, 'one of fieldRef and resourceFieldRef is required'));
    }
    errs.push(...validateMode(file.mode, child(path, 'mode')));
  }
  return errs;
}

/** validateProjectedVolumeSource, for its secret and configMap projections and their paths. */
function validateProjected(source: JsonObject, path: Path): FieldError[] {
  const errs = validateMode(source.defaultMode, child(path, 'defaultMode'));
  const seen = new Set<string>();
  list(source.sources).forEach((raw, i) => {
    const projection = objOrEmpty(raw);
    const srcPath = index(child(path, 'sources'), i);
    let count = 0;
    for (const kind of ['secret', 'configMap'] as const) {
      const p = obj(projection[kind]);
      if (!p) continue;
      count++;
      const projPath = child(srcPath, kind);
      if (str(p.name).length === 0) errs.push(required(child(projPath, 'name')));
      list(p.items).forEach((item, j) => {
        const kp = objOrEmpty(item);
        errs.push(...validateKeyToPath(kp, index(child(projPath, 'items'), j)));
        const target = str(kp.path);
        if (target.length > 0) {
          if (seen.has(target)) errs.push(invalid(path, str(p.name), 'conflicting duplicate paths'));
          seen.add(target);
        }
      });
    }
    for (const kind of ['downwardAPI', 'serviceAccountToken', 'clusterTrustBundle'])
      if (obj(projection[kind])) count++;
    const token = obj(projection.serviceAccountToken);
    if (token) {
      const expiration = num(token.expirationSeconds) ?? 0;
      const tokenPath = child(srcPath, 'serviceAccountToken');
      if (expiration < 600) {
        errs.push(
          invalid(
            child(tokenPath, 'expirationSeconds'),
            expiration,
            'may not specify a duration less than 10 minutes',
          ),
        );
      }
      if (expiration > 2 ** 32) {
        errs.push(
          invalid(
            child(tokenPath, 'expirationSeconds'),
            expiration,
            'may not specify a duration larger than 2^32 seconds',
          ),
        );
      }
      if (str(token.path) === '') errs.push(required(child(path, 'path')));
      else errs.push(...validateLocalNonReservedPath(str(token.path), child(path, 'path')));
    }
    if (count > 1) errs.push(forbidden(srcPath, 'may not specify more than 1 volume type per source'));
  });
  return errs;
}

function validateSource(json: string, source: JsonObject, path: Path): FieldError[] {
  switch (json) {
    case 'hostPath':
      return validateHostPath(source, path);
    case 'secret':
      return validateSecretSource(source, path);
    case 'configMap':
      return validateConfigMapSource(source, path);
    case 'persistentVolumeClaim':
      return str(source.claimName).length === 0 ? [required(child(path, 'claimName'))] : [];
    case 'nfs':
      return validateNFS(source, path);
    case 'downwardAPI':
      return validateDownwardAPI(source, path);
    case 'projected':
      return validateProjected(source, path);
    case 'csi':
      return str(source.driver).length === 0 ? [required(child(path, 'driver'))] : [];
    case 'ephemeral':
      return obj(source.volumeClaimTemplate) ? [] : [required(child(path, 'volumeClaimTemplate'))];
    case 'image': {
      const policy = str(source.pullPolicy);
      if (policy === '') return [required(child(path, 'pullPolicy'))];
      return PULL_POLICIES.includes(policy)
        ? []
        : [notSupported(child(path, 'pullPolicy'), policy, PULL_POLICIES)];
    }
    default:
      return [];
  }
}

/** validateVolumeSource: exactly one source, the second and later ones Forbidden. */
function validateVolumeSource(volume: JsonObject, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const [json, errorPath] of SOURCES) {
    const source = obj(volume[json]);
    if (!source) continue;
    if (count > 0) {
      errs.push(forbidden(child(path, errorPath), 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    errs.push(...validateSource(json, source, child(path, json)));
  }
  if (count === 0) errs.push(required(path, 'must specify a volume type'));
  return errs;
}

/** The volumes a pod spec defines, by name, as mounts see them (upstream's map[string]VolumeSource). */
export type VolumeMap = Map<string, JsonObject>;

/** ValidateVolumes. */
export function validateVolumes(volumes: unknown, path: Path): { volumes: VolumeMap; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  const map: VolumeMap = new Map();
  list(volumes).forEach((raw, i) => {
    const volume = objOrEmpty(raw);
    const idxPath = index(path, i);
    const namePath = child(idxPath, 'name');
    const name = str(volume.name);
    const el = validateVolumeSource(volume, idxPath);
    if (name.length === 0) el.push(required(namePath));
    else for (const msg of isDNS1123Label(name)) el.push(invalid(namePath, name, msg));
    if (names.has(name)) el.push(duplicate(namePath, name));
    if (el.length === 0) {
      names.add(name);
      map.set(name, volume);
    } else {
      errors.push(...el);
    }
  });
  return { volumes: map, errors };
}

/** Shared by env sources: a Secret or ConfigMap name, with generateName-style prefix rules. */
export function validateObjectNameRef(name: string, path: Path, prefix: boolean): FieldError[] {
  return nameIsDNSSubdomain(name, prefix).map((msg) => invalid(path, name, msg));
}

/** Shared by key selectors. */
export function validateConfigKey(keyValue: string, path: Path): FieldError[] {
  if (keyValue.length === 0) return [required(path)];
  return isConfigMapKey(keyValue).map((msg) => invalid(path, keyValue, msg));
}
