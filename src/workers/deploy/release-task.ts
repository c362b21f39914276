/**
 * The release phase of a deploy (docs/apps.md, "The release phase"): the app's release task
 * (Procfile `release`, app.json `scripts.dokku.predeploy`) as the Job `{app}-release-{revision}`
 * (deploy-task.ts), run by the engine's `beforeApply` step: after the revision exists and before
 * its first write, so nothing of the new version rolls out before the task succeeded.
 *
 * A failure is a `BeforeApplyFailure`: the engine marks the revision failed, applies nothing (the
 * previous ReplicaSet keeps serving) and the job fails. The next deploy makes a new revision,
 * whose task runs again; a retry of the same revision never runs a succeeded task twice.
 */
import { BeforeApplyFailure } from '../../releases/index.ts';
import type { Cluster } from '../cluster.ts';
import type { HandlerContext } from '../handler.ts';
import { RELEASE_TASK_FIELDS } from '../run/run-record.ts';
import { type DeployTask, runDeployTask } from './deploy-task.ts';

export { FAILURE_TAIL_LINES, RELEASE_JOB_TTL_SECONDS } from './deploy-task.ts';

export type ReleaseTask = Omit<DeployTask, 'kind' | 'fields' | 'failure' | 'rerunFailed'>;

/** `beforeApply` for the app release: runs the task of `revision`, once. */
export function releaseTaskStep(
  ctx: HandlerContext<unknown>,
  cluster: Cluster,
  task: ReleaseTask,
): (revision: number) => Promise<void> {
  return (revision) =>
    runDeployTask(
      ctx,
      cluster,
      {
        ...task,
        kind: 'release',
        fields: RELEASE_TASK_FIELDS,
        failure: (message) => new BeforeApplyFailure(message),
      },
      revision,
    );
}
