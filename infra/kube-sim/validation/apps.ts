/**
 * apps/v1 Deployments and ReplicaSets (pkg/apis/apps/validation ValidateDeploymentSpec,
 * ValidateReplicaSetSpec, ValidatePodTemplateSpecForReplicaSet, ValidateDeploymentStrategy,
 * status validation) plus the apps/v1 selector immutability the registry strategies add
 * (pkg/registry/apps/{deployment,replicaset}/strategy.go ValidateUpdate).
 */
import type { FieldError } from '../errors.ts';
import { type JsonObject, num, obj, objOrEmpty, str } from './access.ts';
import { child, forbidden, invalid, notSupported, type Path, required } from './field.ts';
import {
  validateImmutable,
  validateNonnegative,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from './metadata.ts';
import { isValidPercent, nameIsDNSSubdomain } from './names.ts';
import { templateLabels, validatePodTemplateSpec } from './podspec.ts';
import { selectorConverts, selectorIsEmpty, selectorMatches, validateLabelSelector } from './selector.ts';

function specOf(object: unknown): JsonObject {
  return objOrEmpty(objOrEmpty(object).spec);
}

/** ValidatePositiveIntOrPercent. */
function validateIntOrPercent(value: unknown, path: Path): FieldError[] {
  if (typeof value === 'string') return isValidPercent(value).map((msg) => invalid(path, value, msg));
  if (typeof value === 'number') return validateNonnegative(value, path);
  return [];
}

/** getIntOrPercentValue. */
function intOrPercentValue(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && isValidPercent(value).length === 0) return Number(value.slice(0, -1));
  return 0;
}

/** ValidateDeploymentStrategy and ValidateRollingUpdateDeployment. */
function validateStrategy(value: unknown, path: Path): FieldError[] {
  const strategy = objOrEmpty(value);
  const type = str(strategy.type);
  const rolling = obj(strategy.rollingUpdate);
  if (type === 'Recreate') {
    return rolling
      ? [forbidden(child(path, 'rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'")]
      : [];
  }
  if (type !== 'RollingUpdate') return [notSupported(path, strategy, ['Recreate', 'RollingUpdate'])];
  if (!rolling) return [required(child(path, 'rollingUpdate'), 'this should be defaulted and never be nil')];
  const rollingPath = child(path, 'rollingUpdate');
  const errs = [
    ...validateIntOrPercent(rolling.maxUnavailable, child(rollingPath, 'maxUnavailable')),
    ...validateIntOrPercent(rolling.maxSurge, child(rollingPath, 'maxSurge')),
  ];
  if (intOrPercentValue(rolling.maxUnavailable) === 0 && intOrPercentValue(rolling.maxSurge) === 0) {
    errs.push(
      invalid(
        child(rollingPath, 'maxUnavailable'),
        rolling.maxUnavailable ?? 0,
        'may not be 0 when `maxSurge` is 0',
      ),
    );
  }
  const unavailable = rolling.maxUnavailable;
  if (
    typeof unavailable === 'string' &&
    isValidPercent(unavailable).length === 0 &&
    intOrPercentValue(unavailable) > 100
  ) {
    errs.push(invalid(child(rollingPath, 'maxUnavailable'), unavailable, 'must not be greater than 100%'));
  }
  return errs;
}

/** ValidatePodTemplateSpecForReplicaSet. */
function validateTemplateForReplicaSet(spec: JsonObject, kind: string, path: Path): FieldError[] {
  const template = obj(spec.template);
  if (!template) return [required(path)];
  const errs: FieldError[] = [];
  // A nil selector converts to Nothing(), which is not Empty() and matches no labels.
  if (!selectorIsEmpty(spec.selector) && !selectorMatches(spec.selector, templateLabels(template))) {
    errs.push(
      invalid(
        child(path, 'metadata', 'labels'),
        templateLabels(template),
        '`selector` does not match template `labels`',
      ),
    );
  }
  errs.push(...validatePodTemplateSpec(template, path));
  const podSpec = objOrEmpty(template.spec);
  const restartPolicy = str(podSpec.restartPolicy);
  if (restartPolicy !== 'Always')
    errs.push(notSupported(child(path, 'spec', 'restartPolicy'), restartPolicy, ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push(
      forbidden(
        child(path, 'spec', 'activeDeadlineSeconds'),
        `activeDeadlineSeconds in ${kind} is not Supported`,
      ),
    );
  }
  return errs;
}

/** The selector part shared by Deployments and ReplicaSets (both say "for deployment"). */
function validateSelectorAndTemplate(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!obj(spec.selector)) errs.push(required('spec.selector'));
  else {
    errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
    if (selectorIsEmpty(spec.selector))
      errs.push(invalid('spec.selector', spec.selector, 'empty selector is invalid for deployment'));
  }
  if (!selectorConverts(spec.selector))
    errs.push(invalid('spec.selector', spec.selector, 'invalid label selector'));
  else errs.push(...validateTemplateForReplicaSet(spec, 'ReplicaSet', 'spec.template'));
  return errs;
}

/** ValidateDeploymentSpec. */
function validateDeploymentSpec(deployment: unknown): FieldError[] {
  const spec = specOf(deployment);
  const errs = validateNonnegative(num(spec.replicas) ?? 0, 'spec.replicas');
  errs.push(...validateSelectorAndTemplate(spec));
  errs.push(...validateStrategy(spec.strategy, 'spec.strategy'));
  const minReady = num(spec.minReadySeconds) ?? 0;
  errs.push(...validateNonnegative(minReady, 'spec.minReadySeconds'));
  errs.push(...validateNonnegative(num(spec.revisionHistoryLimit), 'spec.revisionHistoryLimit'));
  const deadline = num(spec.progressDeadlineSeconds);
  if (deadline !== undefined) {
    errs.push(...validateNonnegative(deadline, 'spec.progressDeadlineSeconds'));
    if (deadline <= minReady)
      errs.push(invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
  }
  return errs;
}

export function validateDeployment(deployment: unknown): FieldError[] {
  return [
    ...validateObjectMeta(deployment, { namespaced: true, nameFn: nameIsDNSSubdomain }),
    ...validateDeploymentSpec(deployment),
  ];
}

/** ValidateDeploymentUpdate plus the apps/v1 selector immutability. */
export function validateDeploymentUpdate(deployment: unknown, old: unknown): FieldError[] {
  return [
    ...validateObjectMetaUpdate(deployment, old),
    ...validateDeploymentSpec(deployment),
    ...validateImmutable(specOf(deployment).selector, specOf(old).selector, 'spec.selector'),
  ];
}

/** ValidateReplicaSetSpec. */
function validateReplicaSetSpec(rs: unknown): FieldError[] {
  const spec = specOf(rs);
  return [
    ...validateNonnegative(num(spec.replicas) ?? 0, 'spec.replicas'),
    ...validateNonnegative(num(spec.minReadySeconds) ?? 0, 'spec.minReadySeconds'),
    ...validateSelectorAndTemplate(spec),
  ];
}

export function validateReplicaSet(rs: unknown): FieldError[] {
  return [
    ...validateObjectMeta(rs, { namespaced: true, nameFn: nameIsDNSSubdomain }),
    ...validateReplicaSetSpec(rs),
  ];
}

export function validateReplicaSetUpdate(rs: unknown, old: unknown): FieldError[] {
  return [
    ...validateObjectMetaUpdate(rs, old),
    ...validateReplicaSetSpec(rs),
    ...validateImmutable(specOf(rs).selector, specOf(old).selector, 'spec.selector'),
  ];
}

/** Replica counts in status: non-negative and consistent (ValidateDeploymentStatus / ValidateReplicaSetStatus). */
function validateReplicaStatus(status: JsonObject, fields: string[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of fields) errs.push(...validateNonnegative(num(status[f]) ?? 0, child('status', f)));
  errs.push(...validateNonnegative(num(status.collisionCount), 'status.collisionCount'));
  const replicas = num(status.replicas) ?? 0;
  const ready = num(status.readyReplicas) ?? 0;
  const available = num(status.availableReplicas) ?? 0;
  for (const f of ['updatedReplicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) {
    if (!fields.includes(f)) continue;
    const value = num(status[f]) ?? 0;
    if (value > replicas)
      errs.push(invalid(child('status', f), value, 'cannot be greater than status.replicas'));
  }
  if (available > ready)
    errs.push(invalid('status.availableReplicas', available, 'cannot be greater than readyReplicas'));
  return errs;
}

function collisionCountDecrement(object: unknown, old: unknown): FieldError[] {
  const count = num(objOrEmpty(objOrEmpty(object).status).collisionCount);
  const oldCount = num(objOrEmpty(objOrEmpty(old).status).collisionCount);
  if (oldCount !== undefined && (count === undefined || count < oldCount)) {
    return [invalid('status.collisionCount', count ?? 0, 'cannot be decremented')];
  }
  return [];
}

export function validateDeploymentStatusUpdate(deployment: unknown, old: unknown): FieldError[] {
  const status = objOrEmpty(objOrEmpty(deployment).status);
  return [
    ...validateObjectMetaUpdate(deployment, old),
    ...validateReplicaStatus(status, [
      'observedGeneration',
      'replicas',
      'updatedReplicas',
      'readyReplicas',
      'availableReplicas',
      'unavailableReplicas',
    ]),
    ...collisionCountDecrement(deployment, old),
  ];
}

export function validateReplicaSetStatusUpdate(rs: unknown, old: unknown): FieldError[] {
  const status = objOrEmpty(objOrEmpty(rs).status);
  return [
    ...validateObjectMetaUpdate(rs, old),
    ...validateReplicaStatus(status, [
      'replicas',
      'fullyLabeledReplicas',
      'readyReplicas',
      'availableReplicas',
      'observedGeneration',
    ]),
  ];
}
