/**
 * The postdeploy task of a deploy (docs/apps.md, "Postdeploy"): app.json
 * `scripts.dokku.postdeploy` as the Job `{app}-postdeploy-{revision}` (deploy-task.ts) from the
 * revision just rolled out — its image, `config-{app}`, pull secret and mounts — once the app
 * release's rollout of a new revision succeeded.
 *
 * A failure fails the job but rolls nothing back: the revision is deployed and stays deployed, as
 * Dokku leaves it (its `postdeploy` runs after the new containers took over). The failure is
 * permanent (never retried by itself, so no retry can turn into a rollback). `jobs:retry` of that
 * job runs the task again without redeploying: its upgrade is a no-op, and the revision this job
 * made (recorded before its first write, `lsPostdeployDue`) is the deployed one. A succeeded task
 * is recorded and never run again by a retry or a resumed attempt.
 */
import { PermanentError } from '../../core/errors.ts';
import { JOB_FIELDS, keys } from '../../jobs/keys.ts';
import type { Cluster } from '../cluster.ts';
import type { HandlerContext } from '../handler.ts';
import { POSTDEPLOY_TASK_FIELDS } from '../run/run-record.ts';
import { type DeployTask, runDeployTask } from './deploy-task.ts';

export type PostdeployTask = Omit<DeployTask, 'kind' | 'fields' | 'failure' | 'rerunFailed'>;

/** The job fails; the revision the task followed is deployed and stays so. */
export class PostdeployFailedError extends PermanentError {
  constructor(
    message: string,
    readonly revision: number,
  ) {
    super(`${message}; revision ${revision} stays deployed (a failed postdeploy task rolls nothing back)`);
  }
}

/** Runs the postdeploy task of `revision` (once it succeeded, never again in this job). */
export function runPostdeployTask(
  ctx: HandlerContext<unknown>,
  cluster: Cluster,
  task: PostdeployTask,
  revision: number,
): Promise<void> {
  return runDeployTask(
    ctx,
    cluster,
    {
      ...task,
      kind: 'postdeploy',
      fields: POSTDEPLOY_TASK_FIELDS,
      failure: (message, failed) => new PostdeployFailedError(message, failed),
      rerunFailed: true,
    },
    revision,
  );
}

/**
 * Records the app release revision this job makes, before its first write: a later attempt whose
 * upgrade finds it deployed (a no-op) knows the rollout was this job's, and that its postdeploy
 * task is still due unless its record says it succeeded.
 */
export async function recordPostdeployDue(ctx: HandlerContext<unknown>, revision: number): Promise<void> {
  await ctx.services.redis.hset(keys.job(ctx.job.id), JOB_FIELDS.postdeployDue, String(revision));
}

/** The revision recorded by recordPostdeployDue, if any. */
export async function postdeployDue(ctx: HandlerContext<unknown>): Promise<number | undefined> {
  const raw = await ctx.services.redis.hget(keys.job(ctx.job.id), JOB_FIELDS.postdeployDue);
  const revision = raw ? Number(raw) : Number.NaN;
  return Number.isInteger(revision) ? revision : undefined;
}
