/**
 * One CronJob per cron task. The name comes from the task's suffix, which the apps layer reuses
 * across deploys, so a redeploy updates the CronJob instead of replacing it (and its history). The
 * task's id reaches a label only as a hash: raw ids overflowed the 63-character limit (dokku#8594).
 */

import { metadataFor } from '../../rules/object-metadata.ts';
import { sha256Hex } from '../hash.ts';
import { appLabels } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import { CRONJOB_NAME_MAX, fitName, LABEL_VALUE_MAX } from '../names.ts';
import { mergeUnder, sortRecord } from '../records.ts';
import type { RenderedObject } from '../types.ts';
import type { AppContext } from './context.ts';
import { containerBase, mountsField, mountsOf, podAnnotations, podSpec } from './pod.ts';
import { containerResources } from './resources.ts';
import { splitShellWords } from './shell-words.ts';
import { annotationsFor, labelsFor } from './user-metadata.ts';
import type { CronTaskValues } from './values.ts';

export const CRON_ID_LABEL = 'longshore.dev/cron-id';
export const CRON_COMMAND_ANNOTATION = 'longshore.dev/cron-command';
export const CRON_CONTAINER = 'cron';

export function cronJobName(app: string, suffix: string): string {
  return fitName(`${app}-cron-${suffix}`, CRONJOB_NAME_MAX);
}

/** The label value identifying a task across deploys: sha256 hex of its id, cut to a label value. */
export function cronIdLabel(id: string): string {
  return sha256Hex(id).slice(0, LABEL_VALUE_MAX);
}

export function cronJob(ctx: AppContext, task: CronTaskValues): RenderedObject {
  const { values } = ctx;
  // Not the process labels: cron pods must never match a process's selector (a process may be
  // called `cron`), so they carry part-of and the task's id instead of name/instance.
  // Cron tasks are no process: only entries of every process reach them (user-metadata.ts).
  const labelsOf = (resource: 'cronjob' | 'job' | 'pod') =>
    mergeUnder(
      { [CRON_ID_LABEL]: cronIdLabel(task.id) },
      appLabels(values.app, labelsFor(values, resource, undefined)),
    );
  const labels = labelsOf('cronjob');
  const annotations = mergeUnder(
    { [CRON_COMMAND_ANNOTATION]: task.command },
    annotationsFor(values, 'cronjob', undefined),
  );
  // Only scoped entries: the app-wide annotations were never on the job template (no change there).
  const jobAnnotations = metadataFor(values.metadata?.annotations ?? [], 'job', undefined);
  const mounts = mountsOf(values, undefined);
  const container = {
    ...containerBase(CRON_CONTAINER, values, splitShellWords(task.command)),
    resources: containerResources(),
    ...mountsField(mounts),
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: objectMeta(cronJobName(values.app, task.suffix), values.namespace, labels, annotations),
    spec: {
      schedule: task.schedule,
      timeZone: 'Etc/UTC',
      concurrencyPolicy: task.concurrencyPolicy,
      suspend: task.suspend,
      startingDeadlineSeconds: 60,
      successfulJobsHistoryLimit: 10,
      failedJobsHistoryLimit: 10,
      jobTemplate: {
        metadata: {
          labels: labelsOf('job'),
          ...(Object.keys(jobAnnotations).length > 0 ? { annotations: sortRecord(jobAnnotations) } : {}),
        },
        spec: {
          backoffLimit: 0,
          ttlSecondsAfterFinished: 60,
          activeDeadlineSeconds: 86_400,
          template: {
            metadata: {
              labels: labelsOf('pod'),
              annotations: podAnnotations(values, undefined, annotationsFor(values, 'pod', undefined)),
            },
            spec: podSpec(values, mounts, [container], { restartPolicy: 'Never' }),
          },
        },
      },
    },
  };
}
