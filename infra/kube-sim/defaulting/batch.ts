/**
 * batch/v1 defaults (pkg/apis/batch/v1/defaults.go SetDefaults_Job, SetDefaults_CronJob) and the
 * selector and labels the Job strategy generates once the uid is known
 * (pkg/registry/batch/job/strategy.go generateSelector).
 */
import type { KubeObject } from '../types.ts';
import { ensureObject, type JsonObject, objectAt, objectsAt, setDefault } from './context.ts';
import { defaultPodTemplate } from './podspec.ts';

const JOB_NAME_LABELS = ['job-name', 'batch.kubernetes.io/job-name'];
const CONTROLLER_UID_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid'];

function stringMapAt(target: JsonObject, key: string): Record<string, unknown> | undefined {
  return objectAt(target, key);
}

/** The template's labels become the Job's own when it has none. */
function copyTemplateLabels(job: JsonObject, spec: JsonObject): void {
  const templateLabels = stringMapAt(objectAt(objectAt(spec, 'template') ?? {}, 'metadata') ?? {}, 'labels');
  const meta = ensureObject(job, 'metadata');
  const labels = stringMapAt(meta, 'labels');
  if (templateLabels && (!labels || Object.keys(labels).length === 0)) meta.labels = { ...templateLabels };
}

/** SetDefaults_Job (JobPodReplacementPolicy is on in 1.33). */
export function defaultJob(job: JsonObject): void {
  const spec = ensureObject(job, 'spec');
  if (
    (spec.completions === undefined || spec.completions === null) &&
    (spec.parallelism === undefined || spec.parallelism === null)
  ) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, 'parallelism', 1);
  if (spec.backoffLimit === undefined || spec.backoffLimit === null) {
    spec.backoffLimit = typeof spec.backoffLimitPerIndex === 'number' ? 2147483647 : 6;
  }
  copyTemplateLabels(job, spec);
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  const failurePolicy = objectAt(spec, 'podFailurePolicy');
  for (const rule of failurePolicy ? objectsAt(failurePolicy, 'rules') : []) {
    for (const pattern of objectsAt(rule, 'onPodConditions')) setDefault(pattern, 'status', 'True');
  }
  setDefault(spec, 'podReplacementPolicy', failurePolicy ? 'Failed' : 'TerminatingOrFailed');
  setDefault(spec, 'manualSelector', false);
  defaultPodTemplate(spec);
}

/** SetDefaults_CronJob; the job template's pod template gets pod defaults, the Job spec does not. */
export function defaultCronJob(cronJob: JsonObject): void {
  const spec = ensureObject(cronJob, 'spec');
  setDefault(spec, 'concurrencyPolicy', 'Allow');
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'successfulJobsHistoryLimit', 3);
  setDefault(spec, 'failedJobsHistoryLimit', 1);
  const jobSpec = objectAt(objectAt(spec, 'jobTemplate') ?? {}, 'spec');
  if (jobSpec) defaultPodTemplate(jobSpec);
}

/**
 * generateSelector, for Jobs without `manualSelector: true`: the template gets `job-name` and
 * `controller-uid` labels (legacy and batch.kubernetes.io/ forms, user values kept) and the selector
 * matches `batch.kubernetes.io/controller-uid`. Call after the uid is assigned, before validating.
 * Like a read back from storage, the Job's labels then default to its template's if it has none.
 */
export function defaultJobSelector(job: KubeObject): void {
  const spec = ensureObject(job, 'spec');
  if (spec.manualSelector === true) return;
  const name = job.metadata.name ?? '';
  const uid = job.metadata.uid ?? '';
  const templateMeta = ensureObject(ensureObject(spec, 'template'), 'metadata');
  const labels = ensureObject(templateMeta, 'labels');
  for (const label of JOB_NAME_LABELS) if (!(label in labels)) labels[label] = name;
  for (const label of CONTROLLER_UID_LABELS) if (!(label in labels)) labels[label] = uid;
  const matchLabels = ensureObject(ensureObject(spec, 'selector'), 'matchLabels');
  if (!('batch.kubernetes.io/controller-uid' in matchLabels))
    matchLabels['batch.kubernetes.io/controller-uid'] = uid;
  // Upstream copies these labels only when reading the stored Job back, after validation; a name
  // too long for a label value fails validation on the template, so it is not copied to report
  // the same errors.
  if (name.length <= 63) copyTemplateLabels(job, spec);
}
