/**
 * A deployment task as a Kubernetes Job `{app}-{kind}-{revision}`: the release task (Procfile
 * `release`, app.json `scripts.dokku.predeploy`), run by the deploy pipeline before the app
 * release's first write (src/workers/deploy/release-task.ts, docs/apps.md "The release phase"),
 * or the postdeploy task (app.json `scripts.dokku.postdeploy`), run after its rollout
 * (src/workers/deploy/postdeploy-task.ts, docs/apps.md "Postdeploy"). Its pod is the app's
 * pod of the revision being deployed: the new image, the new `config-{app}` through envFrom, the
 * pull secrets and every mount shared by all processes (a process's own mounts are its own).
 *
 * - The command is split as a Procfile command is (the chart's Deployments do the same) and
 *   becomes the container's `args`, so the image's ENTRYPOINT (a buildpack launcher) runs it.
 * - One pod, never restarted (`backoffLimit: 0`, `restartPolicy: Never`): a migration that failed
 *   is not run again by the Job controller; the next deploy runs it again.
 * - `activeDeadlineSeconds` is the app's `release-timeout`; past it the Job fails
 *   (DeadlineExceeded) and so does the deploy.
 * - Not part of the app release: the engine would delete it on the next deploy; its TTL removes it.
 */
import { appLabels } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import { DNS_LABEL_MAX, fitName } from '../names.ts';
import { mergeUnder, sortRecord } from '../records.ts';
import type { RenderedObject } from '../types.ts';
import { envFrom, mountsField, mountsOf, podSpec } from './pod.ts';
import { containerResources } from './resources.ts';
import { RUN_APP_LABEL, RUN_JOB_ID_ANNOTATION, RUN_JOB_LABEL } from './run-job.ts';
import { splitShellWords } from './shell-words.ts';
import type { AppChartValues } from './values.ts';

/** `longshore.dev/job=release`: told apart from `run` Jobs (which prune deletes). */
export const RELEASE_JOB_VALUE = 'release';
/**
 * Which deployment task a Job runs: its name's middle, its `longshore.dev/job` label (neither is
 * `run`, so prune's run-Job sweep leaves both to their TTL) and its container's name.
 */
export type DeployTaskKind = 'release' | 'postdeploy';
/** The app release revision the task ran for. */
export const RELEASE_REVISION_ANNOTATION = 'longshore.dev/revision';
/** The task's container (named by its kind): `kubectl logs job/{name}` needs no `-c`. */
export const RELEASE_CONTAINER = 'release';

/** `{app}-{kind}-{revision}`, shortened with a hash suffix when the app's name is long. */
export function releaseJobName(app: string, revision: number, kind: DeployTaskKind = 'release'): string {
  return fitName(`${app}-${kind}-${revision}`, DNS_LABEL_MAX);
}

export interface ReleaseJobOptions {
  /** `release` (default) or `postdeploy`. */
  kind?: DeployTaskKind;
  /** The app release revision this task precedes (release) or follows (postdeploy). */
  revision: number;
  command: string;
  /** The longshore job running the deploy: a retried attempt recognises its own Job by it. */
  jobId: string;
  activeDeadlineSeconds: number;
  ttlSecondsAfterFinished: number;
  /**
   * The pod's service account: the app's once its release has created it, else the namespace's
   * `default` (the app's ServiceAccount is part of the app release, which is applied after).
   */
  serviceAccountName: string;
}

export function releaseJob(values: AppChartValues, task: ReleaseJobOptions): RenderedObject {
  const kind = task.kind ?? 'release';
  const args = splitShellWords(task.command);
  if (args.length === 0) throw new RangeError('releaseJob: the command is empty');
  const labels = mergeUnder(
    { ...appLabels(values.app), [RUN_APP_LABEL]: values.app, [RUN_JOB_LABEL]: kind },
    values.labels,
  );
  const annotations = mergeUnder(
    { [RUN_JOB_ID_ANNOTATION]: task.jobId, [RELEASE_REVISION_ANNOTATION]: String(task.revision) },
    values.annotations,
  );
  const mounts = mountsOf(values, undefined);
  const container: Record<string, unknown> = {
    name: kind,
    image: values.image,
    args,
    envFrom: envFrom(values.app),
    resources: containerResources(),
    ...mountsField(mounts),
  };
  const template: Record<string, unknown> = { labels };
  if (Object.keys(values.annotations).length > 0) template.annotations = sortRecord(values.annotations);
  const name = releaseJobName(values.app, task.revision, kind);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: objectMeta(name, values.namespace, labels, annotations),
    spec: {
      activeDeadlineSeconds: task.activeDeadlineSeconds,
      backoffLimit: 0,
      template: {
        metadata: template,
        spec: podSpec(values, mounts, [container], {
          restartPolicy: 'Never',
          serviceAccountName: task.serviceAccountName,
        }),
      },
      ttlSecondsAfterFinished: task.ttlSecondsAfterFinished,
    },
  };
}
