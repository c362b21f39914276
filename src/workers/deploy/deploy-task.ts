/**
 * A deployment task of a deploy as a Kubernetes Job `{app}-{kind}-{revision}`
 * (charts/app/release-job.ts) from the revision being deployed — its image, `config-{app}`, pull
 * secrets and mounts: the release task before the rollout (release-task.ts), the postdeploy task
 * after it (postdeploy-task.ts). docs/apps.md, "The release phase" and "Postdeploy".
 *
 * The task's output is relayed line by line into the deploy's own stream (`ctx.log`, what
 * `--wait` prints) through the run relay and its cursor (src/workers/run/follow-job.ts); a
 * resumed attempt goes on where the cursor is (the cursor is written after its lines, so a crash
 * in between repeats a line rather than losing it).
 *
 * Outcome, recorded in the job's hash (the kind's `end` field: the Job's name, its revision, the
 * exit): exit 0 is recorded, and a retry or resume of the job that reaches the same revision finds
 * the record — or, if its write was lost, the finished Job itself — and does not run the task
 * again. A non-zero exit, an image that cannot be pulled, a configuration that cannot be resolved,
 * or the `release-timeout` passing: the kind's failure (`task.failure`) with the task's last lines.
 * A recorded failure fails again (a release task: its revision is failed for good) or, with
 * `rerunFailed`, runs the task again (a retried postdeploy: its revision is deployed).
 */
import type { AppChartValues, DeployTaskKind } from '../../../charts/index.ts';
import { releaseJob, releaseJobName } from '../../../charts/index.ts';
import { PermanentError, TransientError } from '../../core/errors.ts';
import type { Cluster } from '../cluster.ts';
import type { HandlerContext, HandlerResult } from '../handler.ts';
import { type FollowedJob, JobFailedError, relayUntilExit, sleep } from '../run/follow-job.ts';
import { RunJobApi } from '../run/job-api.ts';
import { splitTimestamp } from '../run/log-cursor.ts';
import { RunRelay, readPodLog } from '../run/relay.ts';
import { RunRecord, type RunRecordFields } from '../run/run-record.ts';

/** A finished release Job stays a day for `kubectl logs`, then the TTL controller deletes it. */
export const RELEASE_JOB_TTL_SECONDS = 86_400;
/** Lines of the task's output quoted in a failure. */
export const FAILURE_TAIL_LINES = 10;
/** Past the Job's own deadline, how long the worker waits for the Job controller to say so. */
const DEADLINE_GRACE_MS = 30_000;

export interface DeployTask {
  kind: DeployTaskKind;
  /** The job hash fields of its record (run-record.ts). */
  fields: RunRecordFields;
  /** The error the task's failure is thrown as (a release task's fails its revision). */
  failure: (message: string, revision: number) => Error;
  /** A recorded failure of the same Job runs the task again rather than failing again. */
  rerunFailed?: boolean;
  /** The app chart's values of the revision being deployed. */
  values: AppChartValues;
  command: string;
  timeoutSeconds: number;
  /** `{app}` once the app release created its ServiceAccount, else `default`. */
  serviceAccountName: string;
  /** Called first: what the job printed before reaches its stream before the task's lines. */
  beforeOutput?: () => Promise<void>;
}

/** The end recorded for one task Job. */
interface TaskEnd extends HandlerResult {
  jobName: string;
  revision: number;
  exitCode?: number;
  failure?: string;
}

/** Runs the task of `revision`, once per revision (a failed postdeploy: again on a retry). */
export async function runDeployTask(
  ctx: HandlerContext<unknown>,
  cluster: Cluster,
  task: DeployTask,
  revision: number,
): Promise<void> {
  await task.beforeOutput?.();
  const app = task.values.app;
  const namespace = task.values.namespace;
  const name = releaseJobName(app, revision, task.kind);
  const label = `${task.kind} task ${name}`;
  await ctx.step(`Running the ${task.kind} task (${name}): ${task.command}`);
  const record = new RunRecord(ctx.services.redis, ctx.job.id, task.fields);
  let saved = await record.read();
  const end = saved.end as TaskEnd | undefined;
  if (end?.jobName === name) {
    if (end.exitCode === 0) {
      await ctx.log(`${label}: succeeded earlier (revision ${revision}); not run again`);
      return;
    }
    if (!task.rerunFailed) throw task.failure(end.failure ?? `${label} failed`, revision);
  }
  const fail = async (failure: string): Promise<never> => {
    await record.saveEnd({ jobName: name, revision, failure } satisfies TaskEnd);
    throw task.failure(failure, revision);
  };
  const api = new RunJobApi(
    cluster.kube.batch,
    cluster.kube.core,
    { namespace, name, jobId: ctx.job.id },
    ctx.signal,
  );
  if (end?.jobName === name) {
    // A retry of the job its failure failed: the task runs again, as a new Job of the same name.
    await ctx.log(`${label}: failed earlier (revision ${revision}); running it again`);
    const earlier = await api.readAny();
    if (earlier) await deleteAndWait(ctx, api, earlier, label);
    await record.forget();
    saved = {};
  }
  // The uid is recorded as `{name} {uid}`: a record of another revision's Job is not this one's.
  const [savedName, savedUid] = (saved.uid ?? '').split(' ');
  const mine = savedName === name ? savedUid : undefined;
  let job = await api.readAny();
  if (job && !api.isOurs(job)) {
    await replaceLeftover(ctx, api, job, label, (m) => task.failure(m, revision));
    job = undefined;
  }
  if (!job) {
    if (mine)
      return await fail(
        `${label}: its Job is gone (deleted by hand) after it started; the task is not run twice in one revision: deploy again`,
      );
    job = await api.create(
      releaseJob(task.values, {
        kind: task.kind,
        revision,
        command: task.command,
        jobId: ctx.job.id,
        activeDeadlineSeconds: task.timeoutSeconds,
        ttlSecondsAfterFinished: RELEASE_JOB_TTL_SECONDS,
        serviceAccountName: task.serviceAccountName,
      }),
    );
    await ctx.log(`Job ${namespace}/${name} created (image ${task.values.image})`);
  }
  const uid = job.metadata?.uid;
  if (!uid) throw new PermanentError(`Job ${namespace}/${name} has no uid`);
  if (mine !== uid) await record.created(`${name} ${uid}`);

  const run: FollowedJob = { api, record, name, namespace, uid, container: task.kind, label };
  // The lines this attempt relayed: the failure quotes them when the pod's log is gone with it
  // (past its deadline, the Job controller deletes the pod).
  const relayed: string[] = [];
  const relay = new RunRelay(async (texts, cursor) => {
    for (const text of texts) await ctx.log(text);
    relayed.push(...texts);
    relayed.splice(0, Math.max(0, relayed.length - FAILURE_TAIL_LINES));
    await record.saveCursor(cursor);
  });
  const tail = async () => (await lastLines(ctx, cluster, run)) || quoted(relayed);

  // The Job's own deadline ends the task; this one only ends a wait the controller never ends.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (ctx.signal.aborted) stop.abort();
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      stop.abort();
    },
    task.timeoutSeconds * 1000 + DEADLINE_GRACE_MS,
  );
  let exited: Awaited<ReturnType<typeof relayUntilExit>>;
  try {
    exited = await relayUntilExit(ctx, run, relay, saved.cursor, stop.signal);
  } catch (err) {
    if (!(err instanceof JobFailedError)) throw err;
    const why =
      err.reason === 'DeadlineExceeded'
        ? `${err.message} (release-timeout ${task.timeoutSeconds} s)`
        : err.message;
    return await fail(`${why}${await tail()}`);
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
  }
  if (!exited) {
    if (!timedOut)
      throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new PermanentError('aborted');
    const tail = await lastLines(ctx, cluster, run);
    await api.delete();
    return await fail(
      `${label}: still running past its release-timeout of ${task.timeoutSeconds} s (the Job was deleted)${tail}`,
    );
  }
  if (exited.exitCode !== 0) return await fail(`${label} exited ${exited.exitCode}${await tail()}`);
  await record.saveEnd({ jobName: name, revision, exitCode: 0 } satisfies TaskEnd);
  await ctx.log(`${label}: succeeded`);
}

/** How long a finished leftover Job of the same name may take to go once deleted. */
const LEFTOVER_GONE_MS = 30_000;

/**
 * A Job of this name another job created: the task of an earlier life of the app (destroyed and
 * deployed again while that Job's TTL runs, so its revision numbers start over). Finished, it is
 * deleted (its pod with it) and this revision's Job is created; still running, it is refused.
 */
async function replaceLeftover(
  ctx: HandlerContext<unknown>,
  api: RunJobApi,
  job: NonNullable<Awaited<ReturnType<RunJobApi['readAny']>>>,
  label: string,
  failure: (message: string) => Error,
): Promise<void> {
  const where = `${job.metadata?.namespace}/${job.metadata?.name}`;
  const done = (job.status?.conditions ?? []).some(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
  if (!done)
    throw failure(
      `${label}: Job ${where} exists, was not created by this deploy and is still running; wait for it to finish (or delete it) and deploy again`,
    );
  await deleteAndWait(ctx, api, job, label);
  await ctx.log(`Job ${where} (finished, left by an earlier deploy) deleted`);
}

/** Deletes the Job (its pod with it) and waits until its name is free for a new one. */
async function deleteAndWait(
  ctx: HandlerContext<unknown>,
  api: RunJobApi,
  job: NonNullable<Awaited<ReturnType<RunJobApi['readAny']>>>,
  label: string,
): Promise<void> {
  const where = `${job.metadata?.namespace}/${job.metadata?.name}`;
  await api.delete();
  const deadline = Date.now() + LEFTOVER_GONE_MS;
  while (await api.readAny()) {
    if (Date.now() > deadline)
      throw new TransientError(`${label}: the earlier Job ${where} is still being deleted`);
    await sleep(200, ctx.signal);
  }
}

/** `; its last lines: a | b` (each line at most 200 characters), or '' for none. */
function quoted(lines: readonly string[]): string {
  const tail = lines.slice(-FAILURE_TAIL_LINES).map((l) => (l.length > 200 ? `${l.slice(0, 200)}…` : l));
  return tail.length > 0 ? `; its last lines: ${tail.join(' | ')}` : '';
}

/** The end of the task's output read from its pod (what every attempt relayed), quoted. */
async function lastLines(ctx: HandlerContext<unknown>, cluster: Cluster, run: FollowedJob): Promise<string> {
  try {
    const pods = await run.api.pods(run.uid);
    const pod = pods.at(-1)?.metadata?.name;
    if (!pod) return '';
    const lines: string[] = [];
    await readPodLog({
      kc: cluster.kube.kc,
      namespace: run.namespace,
      pod,
      container: run.container,
      follow: false,
      tailLines: FAILURE_TAIL_LINES,
      onLines: (read) => {
        for (const line of read) lines.push(splitTimestamp(line).text);
      },
      signal: ctx.signal,
    });
    return quoted(lines);
  } catch {
    // The failure is reported with or without them (the pod may be gone, its log unreadable).
    return '';
  }
}
