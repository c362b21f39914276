/**
 * apps/v1 StatefulSets and DaemonSets (pkg/apis/apps/validation/validation.go
 * ValidateStatefulSetSpec, ValidatePodTemplateSpecForStatefulSet, ValidateStatefulSetUpdate,
 * ValidatePersistentVolumeClaimRetentionPolicy, ValidateDaemonSetSpec,
 * ValidateDaemonSetUpdateStrategy, ValidateRollingUpdateDaemonSet, the status validations) plus the
 * apps/v1 selector immutability of pkg/registry/apps/daemonset/strategy.go.
 */
import type { FieldError } from '../errors.ts';
import { type JsonObject, num, obj, objOrEmpty, str } from './access.ts';
import { semanticEqual } from './equality.ts';
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

const specOf = (object: unknown): JsonObject => objOrEmpty(objOrEmpty(object).spec);
const statusOf = (object: unknown): JsonObject => objOrEmpty(objOrEmpty(object).status);

/** The selector and the template: shared by ValidateStatefulSetSpec and ValidateDaemonSetSpec. */
function validateSelectorAndTemplate(spec: JsonObject, kind: 'StatefulSet' | 'DaemonSet'): FieldError[] {
  const errs: FieldError[] = [];
  if (!obj(spec.selector)) errs.push(required('spec.selector'));
  else {
    errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
    if (selectorIsEmpty(spec.selector))
      errs.push(
        invalid('spec.selector', spec.selector, `empty selector is invalid for ${kind.toLowerCase()}`),
      );
  }
  if (!selectorConverts(spec.selector)) {
    errs.push(invalid('spec.selector', spec.selector, 'invalid label selector'));
    return errs;
  }
  const template = obj(spec.template);
  if (!template) return [...errs, required('spec.template')];
  if (!selectorIsEmpty(spec.selector) && !selectorMatches(spec.selector, templateLabels(template)))
    errs.push(
      invalid(
        'spec.template.metadata.labels',
        templateLabels(template),
        '`selector` does not match template `labels`',
      ),
    );
  errs.push(...validatePodTemplateSpec(withClaimVolumes(template, spec), 'spec.template'));
  const podSpec = objOrEmpty(template.spec);
  const restartPolicy = str(podSpec.restartPolicy);
  if (restartPolicy !== 'Always')
    errs.push(notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null)
    errs.push(
      forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        `activeDeadlineSeconds in ${kind} is not Supported`,
      ),
    );
  return errs;
}

/**
 * A StatefulSet's containers mount its volumeClaimTemplates by name, and those are not volumes of
 * the template: upstream's ValidatePodTemplateSpecForStatefulSet leaves the pod spec unvalidated
 * for that reason ("check that the union of the given volumes and volumeClaims match volume mounts"),
 * so the template is checked here with a volume standing for each claim template (the Pods the
 * controller creates get the real persistentVolumeClaim volumes).
 */
function withClaimVolumes(template: JsonObject, spec: JsonObject): JsonObject {
  const claims = Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : [];
  const names = claims.map((c) => str(objOrEmpty(objOrEmpty(c).metadata).name)).filter(Boolean);
  if (names.length === 0) return template;
  const podSpec = objOrEmpty(template.spec);
  const volumes = Array.isArray(podSpec.volumes) ? podSpec.volumes : [];
  const given = new Set(volumes.map((v) => str(objOrEmpty(v).name)));
  const standIns = names
    .filter((name) => !given.has(name))
    .map((name) => ({ name, persistentVolumeClaim: { claimName: name } }));
  return { ...template, spec: { ...podSpec, volumes: [...volumes, ...standIns] } };
}

function validateRetentionPolicy(value: unknown, path: Path): FieldError[] {
  const policy = obj(value);
  if (!policy) return [];
  const errs: FieldError[] = [];
  for (const field of ['whenDeleted', 'whenScaled']) {
    const v = str(policy[field]);
    if (v !== 'Retain' && v !== 'Delete')
      errs.push(notSupported(child(path, field), v, ['Retain', 'Delete']));
  }
  return errs;
}

function validateStatefulSetSpec(sts: unknown): FieldError[] {
  const spec = specOf(sts);
  const errs: FieldError[] = [];
  const policy = str(spec.podManagementPolicy);
  if (policy === '') errs.push(required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel')
    errs.push(invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  const strategy = objOrEmpty(spec.updateStrategy);
  const type = str(strategy.type);
  const rolling = obj(strategy.rollingUpdate);
  if (type === '') errs.push(required('spec.updateStrategy'));
  else if (type === 'OnDelete') {
    if (rolling)
      errs.push(
        invalid(
          'spec.updateStrategy.rollingUpdate',
          rolling,
          "only allowed for updateStrategy 'RollingUpdate'",
        ),
      );
  } else if (type === 'RollingUpdate') {
    if (rolling)
      errs.push(
        ...validateNonnegative(num(rolling.partition) ?? 0, 'spec.updateStrategy.rollingUpdate.partition'),
      );
  } else errs.push(invalid('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  errs.push(
    ...validateRetentionPolicy(
      spec.persistentVolumeClaimRetentionPolicy,
      'spec.persistentVolumeClaimRetentionPolicy',
    ),
  );
  errs.push(...validateNonnegative(num(spec.replicas) ?? 0, 'spec.replicas'));
  errs.push(...validateNonnegative(num(spec.minReadySeconds) ?? 0, 'spec.minReadySeconds'));
  const ordinals = obj(spec.ordinals);
  if (ordinals) errs.push(...validateNonnegative(num(ordinals.start) ?? 0, 'spec.ordinals.start'));
  errs.push(...validateSelectorAndTemplate(spec, 'StatefulSet'));
  return errs;
}

export function validateStatefulSet(sts: unknown): FieldError[] {
  return [
    ...validateObjectMeta(sts, { namespaced: true, nameFn: nameIsDNSSubdomain }),
    ...validateStatefulSetSpec(sts),
  ];
}

/** Fields of a StatefulSet's spec an update may change (ValidateStatefulSetUpdate). */
const STS_MUTABLE = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'revisionHistoryLimit',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
];

export function validateStatefulSetUpdate(sts: unknown, old: unknown): FieldError[] {
  const errs = [...validateObjectMetaUpdate(sts, old), ...validateStatefulSetSpec(sts)];
  const rest = (o: unknown) =>
    Object.fromEntries(Object.entries(specOf(o)).filter(([k]) => !STS_MUTABLE.includes(k)));
  if (!semanticEqual(rest(sts), rest(old)))
    errs.push(
      forbidden(
        'spec',
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  return errs;
}

export function validateStatefulSetStatusUpdate(sts: unknown, old: unknown): FieldError[] {
  const status = statusOf(sts);
  const errs = validateObjectMetaUpdate(sts, old);
  for (const f of [
    'replicas',
    'readyReplicas',
    'currentReplicas',
    'updatedReplicas',
    'availableReplicas',
    'observedGeneration',
    'collisionCount',
  ])
    errs.push(...validateNonnegative(num(status[f]), child('status', f)));
  const replicas = num(status.replicas) ?? 0;
  for (const f of ['readyReplicas', 'currentReplicas', 'updatedReplicas']) {
    const v = num(status[f]) ?? 0;
    if (v > replicas) errs.push(invalid(child('status', f), v, 'cannot be greater than status.replicas'));
  }
  const available = num(status.availableReplicas) ?? 0;
  if (available > (num(status.readyReplicas) ?? 0))
    errs.push(invalid('status.availableReplicas', available, 'cannot be greater than status.readyReplicas'));
  return errs;
}

const percentOrInt = (value: unknown, path: Path): FieldError[] =>
  typeof value === 'string'
    ? isValidPercent(value).map((m) => invalid(path, value, m))
    : typeof value === 'number'
      ? validateNonnegative(value, path)
      : [];

const intOrPercentValue = (value: unknown): number =>
  typeof value === 'number'
    ? value
    : typeof value === 'string' && isValidPercent(value).length === 0
      ? Number(value.slice(0, -1))
      : 0;

function validateDaemonSetStrategy(value: unknown, path: Path): FieldError[] {
  const strategy = objOrEmpty(value);
  const type = str(strategy.type);
  if (type === 'OnDelete') return [];
  if (type !== 'RollingUpdate')
    return [notSupported(child(path, 'type'), type, ['OnDelete', 'RollingUpdate'])];
  const rolling = obj(strategy.rollingUpdate);
  const rollingPath = child(path, 'rollingUpdate');
  if (!rolling) return [required(rollingPath, 'this should be defaulted and never be nil')];
  const errs: FieldError[] = [];
  for (const field of ['maxUnavailable', 'maxSurge']) {
    const v = rolling[field];
    errs.push(...percentOrInt(v, child(rollingPath, field)));
    if (typeof v === 'string' && isValidPercent(v).length === 0 && intOrPercentValue(v) > 100)
      errs.push(invalid(child(rollingPath, field), v, 'must not be greater than 100%'));
  }
  const hasUnavailable = intOrPercentValue(rolling.maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(rolling.maxSurge) !== 0;
  if (hasUnavailable && hasSurge)
    errs.push(
      invalid(
        child(rollingPath, 'maxSurge'),
        rolling.maxSurge,
        'may not be set when maxUnavailable is non-zero',
      ),
    );
  else if (!hasUnavailable && !hasSurge)
    errs.push(required(child(rollingPath, 'maxUnavailable'), 'cannot be 0 when maxSurge is 0'));
  return errs;
}

function validateDaemonSetSpec(ds: unknown): FieldError[] {
  const spec = specOf(ds);
  return [
    ...validateSelectorAndTemplate(spec, 'DaemonSet'),
    ...validateNonnegative(num(spec.minReadySeconds) ?? 0, 'spec.minReadySeconds'),
    ...validateNonnegative(num(spec.templateGeneration) ?? 0, 'spec.templateGeneration'),
    ...validateDaemonSetStrategy(spec.updateStrategy, 'spec.updateStrategy'),
    ...validateNonnegative(num(spec.revisionHistoryLimit), 'spec.revisionHistoryLimit'),
  ];
}

export function validateDaemonSet(ds: unknown): FieldError[] {
  return [
    ...validateObjectMeta(ds, { namespaced: true, nameFn: nameIsDNSSubdomain }),
    ...validateDaemonSetSpec(ds),
  ];
}

export function validateDaemonSetUpdate(ds: unknown, old: unknown): FieldError[] {
  return [
    ...validateObjectMetaUpdate(ds, old),
    ...validateDaemonSetSpec(ds),
    ...validateImmutable(specOf(ds).selector, specOf(old).selector, 'spec.selector'),
  ];
}

export function validateDaemonSetStatusUpdate(ds: unknown, old: unknown): FieldError[] {
  const status = statusOf(ds);
  const errs = validateObjectMetaUpdate(ds, old);
  for (const f of [
    'currentNumberScheduled',
    'numberMisscheduled',
    'desiredNumberScheduled',
    'numberReady',
    'observedGeneration',
    'updatedNumberScheduled',
    'numberAvailable',
    'numberUnavailable',
    'collisionCount',
  ])
    errs.push(...validateNonnegative(num(status[f]), child('status', f)));
  return errs;
}
