/**
 * Container env and envFrom (pkg/apis/core/validation ValidateEnv, validateEnvVarValueFrom,
 * validateObjectFieldSelector, ValidateEnvFrom), with RelaxedEnvironmentVariableValidation on as
 * in 1.33.
 */
import type { FieldError } from '../errors.ts';
import { list, obj, objOrEmpty, str } from './access.ts';
import { child, index, invalid, notSupported, type Path, required } from './field.ts';
import { isQualifiedName, isRelaxedEnvVarName } from './names.ts';
import { validateConfigKey, validateObjectNameRef } from './volumes.ts';

const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];

/** Labels pods.ConvertDownwardAPIFieldLabel accepts for v1 (before the per-use list above). */
const CONVERTIBLE_FIELD_PATHS = [
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];

const RESOURCE_FIELD_PATHS = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
];

/** fieldpath.SplitMaybeSubscriptedPath: `metadata.labels['app']` → path and subscript. */
function splitSubscript(fieldPath: string): { path: string; subscript: string } | undefined {
  const match = /^(.*)\['(.*)'\]$/.exec(fieldPath);
  return match ? { path: match[1] ?? '', subscript: match[2] ?? '' } : undefined;
}

/** validateObjectFieldSelector for env (fieldRef). */
function validateFieldRef(ref: Record<string, unknown>, path: Path): FieldError[] {
  const apiVersion = str(ref.apiVersion);
  const fieldPath = str(ref.fieldPath);
  if (apiVersion.length === 0) return [required(child(path, 'apiVersion'))];
  if (fieldPath.length === 0) return [required(child(path, 'fieldPath'))];
  const sub = splitSubscript(fieldPath);
  let conversionError = '';
  if (apiVersion !== 'v1') conversionError = `unsupported pod version: ${apiVersion}`;
  else if (sub && sub.path !== 'metadata.annotations' && sub.path !== 'metadata.labels') {
    conversionError = `field label does not support subscript: ${fieldPath}`;
  } else if (!sub && !CONVERTIBLE_FIELD_PATHS.includes(fieldPath) && fieldPath !== 'spec.host') {
    conversionError = `field label not supported: ${fieldPath}`;
  }
  if (conversionError) {
    return [invalid(child(path, 'fieldPath'), fieldPath, `error converting fieldPath: ${conversionError}`)];
  }
  const internal = fieldPath === 'spec.host' ? 'spec.nodeName' : fieldPath;
  if (sub) {
    const name = sub.path === 'metadata.annotations' ? sub.subscript.toLowerCase() : sub.subscript;
    return isQualifiedName(name).map((msg) => invalid(path, name, msg));
  }
  if (!ENV_FIELD_PATHS.includes(internal))
    return [notSupported(child(path, 'fieldPath'), internal, ENV_FIELD_PATHS)];
  return [];
}

function validateResourceFieldRef(ref: Record<string, unknown>, path: Path): FieldError[] {
  const resource = str(ref.resource);
  if (resource.length === 0) return [required(child(path, 'resource'))];
  if (RESOURCE_FIELD_PATHS.includes(resource)) return [];
  if (resource.startsWith('requests.hugepages-') || resource.startsWith('limits.hugepages-')) return [];
  return [notSupported(child(path, 'resource'), resource, RESOURCE_FIELD_PATHS)];
}

function validateKeySelector(ref: Record<string, unknown>, path: Path): FieldError[] {
  return [
    ...validateObjectNameRef(str(ref.name), child(path, 'name'), false),
    ...validateConfigKey(str(ref.key), child(path, 'key')),
  ];
}

/** validateEnvVarValueFrom. */
function validateValueFrom(env: Record<string, unknown>, path: Path): FieldError[] {
  const from = obj(env.valueFrom);
  if (!from) return [];
  const errs: FieldError[] = [];
  let sources = 0;
  const fieldRef = obj(from.fieldRef);
  if (fieldRef) {
    sources++;
    errs.push(...validateFieldRef(fieldRef, child(path, 'fieldRef')));
  }
  const resourceFieldRef = obj(from.resourceFieldRef);
  if (resourceFieldRef) {
    sources++;
    errs.push(...validateResourceFieldRef(resourceFieldRef, child(path, 'resourceFieldRef')));
  }
  const configMapKeyRef = obj(from.configMapKeyRef);
  if (configMapKeyRef) {
    sources++;
    errs.push(...validateKeySelector(configMapKeyRef, child(path, 'configMapKeyRef')));
  }
  const secretKeyRef = obj(from.secretKeyRef);
  if (secretKeyRef) {
    sources++;
    errs.push(...validateKeySelector(secretKeyRef, child(path, 'secretKeyRef')));
  }
  if (sources === 0) {
    errs.push(
      invalid(
        path,
        '',
        'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
      ),
    );
  } else if (str(env.value).length !== 0) {
    errs.push(invalid(path, '', 'may not be specified when `value` is not empty'));
  } else if (sources > 1) {
    errs.push(invalid(path, '', 'may not have more than one field specified at a time'));
  }
  return errs;
}

/** ValidateEnv. */
export function validateEnv(vars: unknown, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  list(vars).forEach((raw, i) => {
    const env = objOrEmpty(raw);
    const idxPath = index(path, i);
    const name = str(env.name);
    if (name.length === 0) errs.push(required(child(idxPath, 'name')));
    else for (const msg of isRelaxedEnvVarName(name)) errs.push(invalid(child(idxPath, 'name'), name, msg));
    errs.push(...validateValueFrom(env, child(idxPath, 'valueFrom')));
  });
  return errs;
}

/** ValidateEnvFrom: the source-count errors land on the list's own path, as upstream's do. */
export function validateEnvFrom(sources: unknown, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  list(sources).forEach((raw, i) => {
    const source = objOrEmpty(raw);
    const idxPath = index(path, i);
    const prefix = str(source.prefix);
    if (prefix.length > 0) {
      for (const msg of isRelaxedEnvVarName(prefix))
        errs.push(invalid(child(idxPath, 'prefix'), prefix, msg));
    }
    let count = 0;
    for (const kind of ['configMapRef', 'secretRef'] as const) {
      const ref = obj(source[kind]);
      if (!ref) continue;
      count++;
      const name = str(ref.name);
      if (name.length === 0) errs.push(required(child(idxPath, kind, 'name')));
      else errs.push(...validateObjectNameRef(name, child(idxPath, kind, 'name'), true));
    }
    if (count === 0) errs.push(invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (count > 1) errs.push(invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}
