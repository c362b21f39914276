/**
 * batch/v1 Jobs (pkg/apis/batch/validation ValidateJob, validateGeneratedSelector, validateJobSpec,
 * ValidateJobSpecUpdate) with the options pkg/registry/batch/job/strategy.go passes in 1.33:
 * prefixed labels required, elastic indexed jobs allowed, scheduling directives of the template
 * mutable while the job is suspended and has never started.
 */
import type { FieldError } from '../errors.ts';
import { clone } from '../types.ts';
import { bool, type JsonObject, list, num, obj, objOrEmpty, str, stringMap } from './access.ts';
import { semanticEqual } from './equality.ts';
import {
  child,
  invalid,
  invalidOmitValue,
  key,
  notSupported,
  type Path,
  required,
  tooLong,
} from './field.ts';
import { validatePodFailurePolicy } from './job-failure-policy.ts';
import {
  validateImmutable,
  validateNonnegative,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from './metadata.ts';
import { isDNS1123Label, isDNS1123Subdomain, nameIsDNSSubdomain } from './names.ts';
import { templateLabels, validatePodTemplateSpec } from './podspec.ts';
import { selectorConverts, selectorMatches, validateLabelSelector } from './selector.ts';

export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';

const MAX_PARALLELISM_INDEXED = 100000;
const MAX_MANAGED_BY_LENGTH = 63;

function specOf(object: unknown): JsonObject {
  return objOrEmpty(objOrEmpty(object).spec);
}

/** ValidateHasLabel. */
function validateHasLabel(
  labels: Record<string, string>,
  path: Path,
  labelKey: string,
  expected: string,
): FieldError[] {
  const actual = labels[labelKey];
  if (actual === undefined) return [required(key(child(path, 'labels'), labelKey), `must be '${expected}'`)];
  return actual === expected
    ? []
    : [invalid(key(child(path, 'labels'), labelKey), labels, `must be '${expected}'`)];
}

/** validateGeneratedSelector: a generated selector selects this job's uid. */
function validateGeneratedSelector(job: unknown, requirePrefixedLabels: boolean): FieldError[] {
  const spec = specOf(job);
  if (bool(spec.manualSelector) === true || !obj(spec.selector)) return [];
  const meta = objOrEmpty(objOrEmpty(job).metadata);
  const uid = str(meta.uid);
  const name = str(meta.name);
  const errs: FieldError[] = [];
  if (uid === '') errs.push(required('metadata.uid'));
  const labels = templateLabels(spec.template);
  const path = 'spec.template.metadata';
  errs.push(...validateHasLabel(labels, path, LEGACY_CONTROLLER_UID_LABEL, uid));
  errs.push(...validateHasLabel(labels, path, LEGACY_JOB_NAME_LABEL, name));
  const expected: Record<string, string> = {
    [LEGACY_CONTROLLER_UID_LABEL]: uid,
    [LEGACY_JOB_NAME_LABEL]: name,
  };
  if (requirePrefixedLabels) {
    errs.push(...validateHasLabel(labels, path, CONTROLLER_UID_LABEL, uid));
    errs.push(...validateHasLabel(labels, path, JOB_NAME_LABEL, name));
    expected[CONTROLLER_UID_LABEL] = uid;
    expected[JOB_NAME_LABEL] = name;
  }
  if (selectorConverts(spec.selector) && !selectorMatches(spec.selector, expected)) {
    errs.push(invalid('spec.selector', spec.selector, '`selector` not auto-generated'));
  }
  return errs;
}

/** validateJobSpec: what Jobs and CronJob job templates share. */
export function validateJobSpecFields(spec: JsonObject, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of [
    'parallelism',
    'completions',
    'activeDeadlineSeconds',
    'backoffLimit',
    'ttlSecondsAfterFinished',
    'backoffLimitPerIndex',
  ]) {
    errs.push(...validateNonnegative(num(spec[f]), child(path, f)));
  }
  const maxFailedIndexes = num(spec.maxFailedIndexes);
  if (maxFailedIndexes !== undefined) {
    errs.push(...validateNonnegative(maxFailedIndexes, child(path, 'maxFailedIndexes')));
    if (num(spec.backoffLimitPerIndex) === undefined) {
      errs.push(required(child(path, 'backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
    }
  }
  if (typeof spec.managedBy === 'string') {
    errs.push(...validateDomainPrefixedPath(spec.managedBy, child(path, 'managedBy')));
    if (spec.managedBy.length > MAX_MANAGED_BY_LENGTH)
      errs.push(tooLong(child(path, 'managedBy'), MAX_MANAGED_BY_LENGTH));
  }
  const mode = spec.completionMode;
  const indexed = mode === 'Indexed';
  if (typeof mode === 'string') {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') {
      errs.push(notSupported(child(path, 'completionMode'), mode, ['NonIndexed', 'Indexed']));
    }
    if (indexed) {
      if (num(spec.completions) === undefined)
        errs.push(required(child(path, 'completions'), 'when completion mode is Indexed'));
      const parallelism = num(spec.parallelism);
      if (parallelism !== undefined && parallelism > MAX_PARALLELISM_INDEXED) {
        errs.push(
          invalid(
            child(path, 'parallelism'),
            parallelism,
            `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`,
          ),
        );
      }
    }
  }
  if (!indexed) {
    const perIndex = num(spec.backoffLimitPerIndex);
    if (perIndex !== undefined)
      errs.push(invalid(child(path, 'backoffLimitPerIndex'), perIndex, 'requires indexed completion mode'));
    if (maxFailedIndexes !== undefined) {
      errs.push(
        invalid(child(path, 'maxFailedIndexes'), maxFailedIndexes, 'requires indexed completion mode'),
      );
    }
  }
  const failurePolicy = obj(spec.podFailurePolicy);
  if (failurePolicy) errs.push(...validatePodFailurePolicy(spec, child(path, 'podFailurePolicy')));
  if (obj(spec.successPolicy) && !indexed) {
    errs.push(invalid(child(path, 'successPolicy'), spec.successPolicy, 'requires indexed completion mode'));
  }
  const replacement = spec.podReplacementPolicy;
  if (typeof replacement === 'string') {
    if (failurePolicy) {
      if (replacement !== 'Failed')
        errs.push(notSupported(child(path, 'podReplacementPolicy'), replacement, ['Failed']));
    } else if (replacement !== 'Failed' && replacement !== 'TerminatingOrFailed') {
      errs.push(
        notSupported(child(path, 'podReplacementPolicy'), replacement, ['Failed', 'TerminatingOrFailed']),
      );
    }
  }
  const templatePath = child(path, 'template');
  errs.push(...validatePodTemplateSpec(spec.template, templatePath));
  // Defaulting turns an omitted restartPolicy into Always, hence "Required" for both.
  const restartPolicy = str(objOrEmpty(objOrEmpty(spec.template).spec).restartPolicy);
  const restartPath = child(templatePath, 'spec', 'restartPolicy');
  if (restartPolicy === 'Always' || restartPolicy === '') {
    errs.push(required(restartPath, 'valid values: "OnFailure", "Never"'));
  } else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    errs.push(notSupported(restartPath, restartPolicy, ['OnFailure', 'Never']));
  } else if (failurePolicy && restartPolicy !== 'Never') {
    errs.push(
      invalid(restartPath, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'),
    );
  }
  return errs;
}

/** validation.IsDomainPrefixedPath (Job managedBy). */
function validateDomainPrefixedPath(value: string, path: Path): FieldError[] {
  if (value.length === 0) return [required(path)];
  const slash = value.indexOf('/');
  if (slash <= 0 || slash === value.length - 1) {
    return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  }
  const host = value.slice(0, slash);
  const rest = value.slice(slash + 1);
  const errs = isDNS1123Subdomain(host).map((msg) => invalid(path, host, msg));
  if (!/^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(rest)) {
    errs.push(
      invalid(path, rest, "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"),
    );
  }
  return errs;
}

/** ValidateJobSpec: the selector is required and must select the template. */
function validateJobSpec(job: unknown): FieldError[] {
  const spec = specOf(job);
  const errs = validateJobSpecFields(spec, 'spec');
  if (!obj(spec.selector)) errs.push(required('spec.selector'));
  else errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  // A nil selector converts to Nothing(): it matches no template labels.
  const matches = obj(spec.selector)
    ? selectorMatchesAll(spec.selector, templateLabels(spec.template))
    : false;
  if (selectorConverts(spec.selector) && !matches) {
    errs.push(
      invalid(
        'spec.template.metadata.labels',
        templateLabels(spec.template),
        '`selector` does not match template `labels`',
      ),
    );
  }
  return errs;
}

/** An empty selector is Everything(); others must match. */
function selectorMatchesAll(selector: unknown, labels: Record<string, string>): boolean {
  const sel = objOrEmpty(selector);
  if (Object.keys(stringMap(sel.matchLabels)).length === 0 && list(sel.matchExpressions).length === 0)
    return true;
  return selectorMatches(selector, labels);
}

function validateJobWithOptions(job: unknown, requirePrefixedLabels: boolean): FieldError[] {
  const errs = validateObjectMeta(job, { namespaced: true, nameFn: nameIsDNSSubdomain });
  errs.push(...validateGeneratedSelector(job, requirePrefixedLabels));
  errs.push(...validateJobSpec(job));
  const spec = specOf(job);
  const completions = num(spec.completions);
  if (spec.completionMode === 'Indexed' && completions !== undefined && completions > 0) {
    const name = str(objOrEmpty(objOrEmpty(job).metadata).name);
    const hostname = `${name}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) {
      errs.push(
        invalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`),
      );
    }
  }
  return errs;
}

export function validateJob(job: unknown): FieldError[] {
  return validateJobWithOptions(job, true);
}

/** The template with the fields a suspended, never-started job may change set to the new values. */
function mutableTemplateView(template: unknown, newTemplate: unknown): JsonObject {
  const view: JsonObject = clone(objOrEmpty(template));
  const next = objOrEmpty(newTemplate);
  const nextSpec = objOrEmpty(next.spec);
  const spec = objOrEmpty(view.spec);
  const nextAffinity = obj(nextSpec.affinity);
  const affinity = obj(spec.affinity);
  if (!nextAffinity && affinity) {
    const { nodeAffinity: _dropped, ...others } = affinity;
    spec.affinity = Object.keys(others).length === 0 ? undefined : others;
  } else if (nextAffinity) {
    spec.affinity = { ...(affinity ?? {}), nodeAffinity: nextAffinity.nodeAffinity };
  }
  spec.nodeSelector = nextSpec.nodeSelector;
  spec.tolerations = nextSpec.tolerations;
  spec.schedulingGates = nextSpec.schedulingGates;
  view.spec = spec;
  const meta = objOrEmpty(view.metadata);
  const nextMeta = objOrEmpty(next.metadata);
  view.metadata = { ...meta, labels: nextMeta.labels, annotations: nextMeta.annotations };
  return view;
}

/** ValidateJobUpdate (after ValidateJob, as the strategy calls both). */
export function validateJobUpdate(job: unknown, old: unknown): FieldError[] {
  const spec = specOf(job);
  const oldSpec = specOf(old);
  const oldLabels = templateLabels(oldSpec.template);
  const requirePrefixed = JOB_NAME_LABEL in oldLabels && CONTROLLER_UID_LABEL in oldLabels;
  const errs = validateJobWithOptions(job, requirePrefixed);
  errs.push(...validateObjectMetaUpdate(job, old));
  errs.push(...validateJobSpec(job));
  const indexed = spec.completionMode === 'Indexed';
  if (!indexed) errs.push(...validateImmutable(spec.completions, oldSpec.completions, 'spec.completions'));
  else if (!semanticEqual(spec.completions, oldSpec.completions) && num(spec.completions) !== undefined) {
    if (num(spec.completions) !== num(spec.parallelism)) {
      errs.push(
        invalid('spec.completions', spec.completions, 'can only be modified in tandem with spec.parallelism'),
      );
    }
  }
  errs.push(...validateImmutable(spec.selector, oldSpec.selector, 'spec.selector'));
  const suspended = bool(oldSpec.suspend) === true;
  const notStarted = objOrEmpty(objOrEmpty(old).status).startTime === undefined;
  const oldTemplate =
    suspended && notStarted ? mutableTemplateView(oldSpec.template, spec.template) : oldSpec.template;
  errs.push(...validateImmutable(spec.template, oldTemplate, 'spec.template'));
  for (const f of [
    'completionMode',
    'podFailurePolicy',
    'backoffLimitPerIndex',
    'managedBy',
    'successPolicy',
  ]) {
    errs.push(...validateImmutable(spec[f], oldSpec[f], child('spec', f)));
  }
  return errs;
}

/** validateJobStatus: counters are non-negative; ready pods never outnumber active ones. */
export function validateJobStatusUpdate(job: unknown, old: unknown): FieldError[] {
  const status = objOrEmpty(objOrEmpty(job).status);
  const oldStatus = objOrEmpty(objOrEmpty(old).status);
  const errs = validateObjectMetaUpdate(job, old);
  for (const f of ['active', 'succeeded', 'failed', 'ready', 'terminating']) {
    errs.push(...validateNonnegative(num(status[f]), child('status', f)));
  }
  const ready = num(status.ready);
  if (ready !== undefined && ready > (num(status.active) ?? 0) && ready !== num(oldStatus.ready)) {
    errs.push(invalid('status.ready', ready, 'cannot set more ready pods than active'));
  }
  for (const f of ['failed', 'succeeded']) {
    const value = num(status[f]) ?? 0;
    if (value < (num(oldStatus[f]) ?? 0))
      errs.push(invalid(child('status', f), value, `cannot decrease the ${f} counter`));
  }
  const complete = list(status.conditions).some(
    (c) => str(objOrEmpty(c).type) === 'Complete' && str(objOrEmpty(c).status) === 'True',
  );
  const failed = list(status.conditions).some(
    (c) => str(objOrEmpty(c).type) === 'Failed' && str(objOrEmpty(c).status) === 'True',
  );
  if (complete && failed)
    errs.push(invalidOmitValue('status.conditions', 'cannot set Complete=True and Failed=true conditions'));
  return errs;
}
