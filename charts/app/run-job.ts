/**
 * A one-off run (`longshore run APP -- CMD…`) as a Kubernetes Job, built from the app chart's
 * values of the deployed revision so the run's pod is the process's pod: its image, the app's
 * environment (`config-{app}` through envFrom), its pull secrets, its storage mounts and its
 * resources. Not part of the app release (a run is no desired state: the engine would delete it on
 * the next deploy); the `run` handler creates it (src/workers/handlers/run.ts, docs/apps.md "run").
 *
 * - The command becomes the container's `args` (the image's ENTRYPOINT kept), as the chart does
 *   with Procfile commands and as `kubectl run IMAGE -- CMD…` does without `--command`: an image
 *   whose entrypoint sets up the app's environment (a buildpack launcher) runs the command in it.
 * - One pod, never restarted (`backoffLimit: 0`, `restartPolicy: Never`): a failed migration is
 *   not run twice.
 * - Extra `--env` values never appear here: they are in the run's own Secret (`runEnvSecret`),
 *   referenced after `config-{app}` so they win, and owned by the Job so the garbage collector
 *   removes it with the Job. That Secret needs the Job's uid, so a run with env is created
 *   suspended and started once its Secret exists: its pod never starts without its environment.
 */
import { base64 } from '../encoding.ts';
import { appLabels } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import { runEnvSecretName } from '../names.ts';
import { mergeUnder, sortRecord } from '../records.ts';
import type { RenderedObject } from '../types.ts';
import { envFrom, mountsField, mountsOf, podSpec } from './pod.ts';
import { containerResources } from './resources.ts';
import { placementFields } from './rollout.ts';
import { annotationsFor, labelsFor } from './user-metadata.ts';
import type { AppChartValues } from './values.ts';

/** Marks a run Job (besides managed-by): what `prune` selects on (src/workers/prune/plan.ts). */
export const RUN_JOB_LABEL = 'longshore.dev/job';
export const RUN_JOB_VALUE = 'run';
/** The app a run belongs to, the key release storage labels its Secrets with (src/storage/names.ts). */
export const RUN_APP_LABEL = 'longshore.dev/app';
/** The longshore job that created the Job: a retried attempt recognises its own Job by it. */
export const RUN_JOB_ID_ANNOTATION = 'longshore.dev/job-id';
export const RUN_PROCESS_ANNOTATION = 'longshore.dev/process';
/** The run's container, `kubectl logs job/{name}` needs no `-c`. */
export const RUN_CONTAINER = 'run';

export interface RunJobOptions {
  /** The Job's name (`runJobName`). */
  name: string;
  /** The process type whose image, mounts and resources the run uses; one of `values.processes`. */
  process: string;
  command: readonly string[];
  /** The longshore job's id (annotation `longshore.dev/job-id`). */
  jobId: string;
  activeDeadlineSeconds: number;
  ttlSecondsAfterFinished: number;
  /** The run has its own env Secret (`runEnvSecretName(name)`): referenced, and the Job created suspended. */
  withEnv: boolean;
  /** stdin and a TTY for an interactive run (attached to by the worker). */
  tty: boolean;
}

/**
 * Labels of a run's Job, pods and Secret: the app's (part-of, managed-by), the app and the run
 * marker, over the user's: for the Job and its pods those of that resource type and the run's
 * process too (charts/app/user-metadata.ts); for the Secret (no resource type) the app-wide ones.
 */
export function runLabels(
  values: AppChartValues,
  resource?: 'job' | 'pod',
  process?: string,
): Record<string, string> {
  return mergeUnder(
    { ...appLabels(values.app), [RUN_APP_LABEL]: values.app, [RUN_JOB_LABEL]: RUN_JOB_VALUE },
    resource ? labelsFor(values, resource, process) : values.labels,
  );
}

export function runJob(values: AppChartValues, run: RunJobOptions): RenderedObject {
  const process = values.processes[run.process];
  if (!process) throw new RangeError(`runJob: app ${values.app} has no process ${run.process}`);
  if (run.command.length === 0) throw new RangeError('runJob: the command is empty');
  const labels = runLabels(values, 'job', run.process);
  const annotations = mergeUnder(
    { [RUN_JOB_ID_ANNOTATION]: run.jobId, [RUN_PROCESS_ANNOTATION]: run.process },
    annotationsFor(values, 'job', run.process),
  );
  const mounts = mountsOf(values, run.process);
  const container: Record<string, unknown> = {
    name: RUN_CONTAINER,
    image: values.image,
    args: [...run.command],
    envFrom: [
      ...envFrom(values.app),
      ...(run.withEnv ? [{ secretRef: { name: runEnvSecretName(run.name) } }] : []),
    ],
    resources: containerResources(process.resources),
    ...mountsField(mounts),
  };
  if (run.tty) Object.assign(container, { stdin: true, stdinOnce: true, tty: true });
  const template: Record<string, unknown> = { labels: runLabels(values, 'pod', run.process) };
  const podAnnotations = annotationsFor(values, 'pod', run.process);
  if (Object.keys(podAnnotations).length > 0) template.annotations = sortRecord(podAnnotations);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: objectMeta(run.name, values.namespace, labels, annotations),
    spec: {
      activeDeadlineSeconds: run.activeDeadlineSeconds,
      backoffLimit: 0,
      ...(run.withEnv ? { suspend: true } : {}),
      template: {
        metadata: template,
        spec: podSpec(values, mounts, [container], { restartPolicy: 'Never', ...placementFields(process) }),
      },
      ttlSecondsAfterFinished: run.ttlSecondsAfterFinished,
    },
  };
}

/** The Job a run's Secret belongs to: the garbage collector deletes the Secret with it. */
export interface RunJobOwner {
  name: string;
  uid: string;
}

/**
 * The run's own `--env` values, as an immutable Opaque Secret `{job}-env` owned by its Job
 * (`controller: true`; no `blockOwnerDeletion`, which would need the right to update the Job's
 * finalizers).
 */
export function runEnvSecret(
  values: AppChartValues,
  owner: RunJobOwner,
  env: Readonly<Record<string, string>>,
): RenderedObject {
  const data: Record<string, string> = {};
  for (const key of Object.keys(env).sort()) data[key] = base64(env[key]!);
  const metadata: RenderedObject['metadata'] & { ownerReferences: Record<string, unknown>[] } = {
    ...objectMeta(runEnvSecretName(owner.name), values.namespace, runLabels(values)),
    ownerReferences: [
      { apiVersion: 'batch/v1', controller: true, kind: 'Job', name: owner.name, uid: owner.uid },
    ],
  };
  return { apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', immutable: true, data };
}
