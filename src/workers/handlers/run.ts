/**
 * `run`: a one-off command in a Kubernetes Job `{app}-run-{suffix}` built from the app's deployed
 * revision (charts/app/run-job.ts), its output relayed line by line to the job's Redis stream
 * (src/jobs/log-stream.ts) for the CLI, which exits with the container's exit code. docs/apps.md,
 * "run".
 *
 * 1. Refuse before anything is created: an app with no deployed revision, an unknown process type,
 *    an env value that does not open.
 * 2. Create or find the Job (job-api.ts: named from the job id, so a retried attempt finds its own),
 *    record its uid, create its env Secret and start it.
 * 3. `detach`: done. Otherwise wait for its pod and relay its log (relay.ts) with a cursor that makes
 *    a resumed attempt repeat no line (log-cursor.ts), until the container ends: the result carries
 *    `exitCode`. A pod that cannot start (ErrImagePull, CreateContainerConfigError…) fails the job
 *    and its Job is deleted; a Job past its deadline fails the job and is kept for its TTL.
 * 3b. `tty` (`run -it`): instead of the log, an attach session relayed both ways through the run's
 *    tty streams (interactiveRun, tty-session.ts); the exit code read from the Pod after it.
 * 4. The relay also ends when the reader cancels (Ctrl-C) or its heartbeat goes stale: the job
 *    completes and the run goes on in the cluster, unfollowed. A worker shutting down hands the job
 *    back; the next attempt resumes the relay.
 */
import { RUN_CONTAINER, runEnvSecret, runJob } from '../../../charts/index.ts';
import { PermanentError } from '../../core/errors.ts';
import { LOG_READER_TIMEOUT_MS } from '../../jobs/log-stream.ts';
import { type RunPayload, runJobNameFor } from '../../jobs/schemas/run.ts';
import { sealContext } from '../../jobs/sealing.ts';
import type { Handler, HandlerContext, HandlerResult } from '../handler.ts';
import { READER_CHECK_MS, readerPresence } from '../logs/reader.ts';
import { LogStreamWriter } from '../logs/stream-writer.ts';
import {
  awaitStarted,
  type FollowedJob,
  JobFailedError,
  readState,
  relayUntilExit,
  sleep,
} from '../run/follow-job.ts';
import { RunJobApi } from '../run/job-api.ts';
import { RunRelay, streamSink } from '../run/relay.ts';
import { RunRecord, type RunRecordState } from '../run/run-record.ts';
import { runTarget } from '../run/target.ts';
import { endTtySession, runTtySession, type TtySessionEnd, ttyHeartbeat } from '../run/tty-session.ts';

type Ctx = HandlerContext<RunPayload>;

interface Run extends FollowedJob {
  record: RunRecord;
}

export const runHandler: Handler<RunPayload> = async (ctx) => {
  const { app, process, command, env, tty, detach } = ctx.payload;
  const { redis, sealer } = ctx.services;
  const record = new RunRecord(redis, ctx.job.id);
  const saved = await record.read();
  // An attempt that wrote the end and died before the job did: its answer stands.
  if (saved.end) return saved.end;

  // 1. Everything that can be refused, before the first write.
  const cluster = await ctx.services.cluster();
  const { values, revision } = await runTarget(cluster, app, process);
  const plainEnv: Record<string, string> = {};
  for (const [key, sealed] of Object.entries(env))
    plainEnv[key] = sealer.open(sealed, sealContext.runEnv(app, key));
  const withEnv = Object.keys(plainEnv).length > 0;
  const name = runJobNameFor(app, ctx.job.id);
  const namespace = values.namespace;
  const body = runJob(values, {
    name,
    process,
    command,
    jobId: ctx.job.id,
    activeDeadlineSeconds: ctx.payload.timeoutSeconds,
    ttlSecondsAfterFinished: ctx.payload.ttlSeconds,
    withEnv,
    tty,
  });
  const api = new RunJobApi(
    cluster.kube.batch,
    cluster.kube.core,
    { namespace, name, jobId: ctx.job.id },
    ctx.signal,
  );

  // 2. The Job, created once.
  let job = await api.read();
  if (!job) {
    if (saved.uid)
      throw new PermanentError(
        `run ${name}: its Job is gone (deleted after its TTL, or by hand) after it started; ` +
          'the command is not run twice: start a new run',
      );
    job = await api.create(body);
    await ctx.log(
      `Job ${namespace}/${name} created from revision ${revision} of ${app} (process ${process})`,
    );
  } else if (saved.uid && job.metadata?.uid !== saved.uid) {
    throw new PermanentError(`run ${name}: its Job was replaced by another of the same name`);
  }
  const uid = job.metadata?.uid;
  if (!uid) throw new PermanentError(`Job ${namespace}/${name} has no uid`);
  if (!saved.uid) await record.created(uid);
  if (withEnv) {
    await api.ensureSecret(runEnvSecret(values, { name, uid }, plainEnv), uid);
    if (job.spec?.suspend) {
      await api.unsuspend();
      await ctx.log(`started it, with ${Object.keys(plainEnv).sort().join(', ')} in its own Secret`);
    }
  }

  // 3. Detached: nobody follows.
  if (detach)
    return {
      summary: `started Job ${namespace}/${name}; its output is not relayed (kubectl logs -f job/${name} -n ${namespace})`,
      jobName: name,
      namespace,
      detached: true,
    };
  const run: Run = { api, record, name, namespace, uid, container: RUN_CONTAINER, label: `run ${name}` };
  if (tty) return interactiveRun(ctx, run);
  return followRun(ctx, run, saved);
};

/** How long the pod is read for its exit code after the attach session ended. */
const EXIT_WAIT_MS = 10_000;

/**
 * `run -it`: waits for the pod to run, attaches and relays the terminal through the run's tty
 * streams (tty-session.ts) until the session ends, then reads the container's exit code from the
 * Pod. A CLI that went away: the session is closed (the shell's stdin with it); a container still
 * running EXIT_WAIT_MS later has its Job deleted, so nothing runs on unfollowed.
 */
async function interactiveRun(ctx: Ctx, run: Run): Promise<HandlerResult> {
  const { redis } = ctx.services;
  const where = `Job ${run.namespace}/${run.name}`;
  const stopBeat = ttyHeartbeat(redis, ctx.job.id);
  const fail = async (message: string): Promise<never> => {
    await endTtySession(redis, ctx.job.id, message).catch(() => undefined);
    throw new PermanentError(message);
  };
  try {
    const started = await awaitStarted(ctx, run, ctx.signal).catch(async (err: unknown) =>
      err instanceof JobFailedError ? await fail(err.message) : Promise.reject(err),
    );
    if (!started)
      throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new PermanentError('aborted');
    const pod = started.pod;
    let ended: TtySessionEnd = { kind: 'closed' };
    if (pod) {
      const cluster = await ctx.services.cluster();
      ended = await runTtySession({
        kc: cluster.kube.kc,
        redis,
        jobId: ctx.job.id,
        namespace: run.namespace,
        pod,
        container: RUN_CONTAINER,
        idleTimeoutMs: ctx.services.config.runIdleTimeoutMs,
        signal: ctx.signal,
        stillStarting: async () => ['starting', 'running'].includes((await readState(run)).kind),
      });
      if (ended.kind === 'aborted')
        throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new PermanentError('aborted');
      if (ended.kind === 'detached') await ctx.log(`detached: ${ended.reason}`);
    }
    // The exit code: attach never carries it, the Pod's status does.
    const deadline = Date.now() + EXIT_WAIT_MS;
    for (;;) {
      const state = await readState(run);
      if (state.kind === 'exited') {
        const why = ended.kind === 'detached' ? ` after ${ended.reason}` : '';
        const result: HandlerResult = {
          summary: `${where} exited ${state.exitCode}${why}`,
          exitCode: state.exitCode,
          jobName: run.name,
          namespace: run.namespace,
        };
        await endTtySession(redis, ctx.job.id, result.summary!, state.exitCode);
        const multi = redis.multi();
        run.record.endWrite(result)(multi);
        await multi.exec();
        return result;
      }
      if (state.kind === 'failed') return await fail(`run ${run.name}: ${state.reason}: ${state.message}`);
      if (Date.now() > deadline) {
        await run.api.delete();
        return await fail(
          `run ${run.name}: ${ended.kind === 'detached' ? ended.reason : 'the terminal session ended'} and the container did not exit within ${EXIT_WAIT_MS / 1000} s: the Job was deleted`,
        );
      }
      await sleep(200, ctx.signal);
    }
  } finally {
    stopBeat();
  }
}

/** 3–4. Relays the run's output until its container ends, its reader goes, or the job is aborted. */
async function followRun(ctx: Ctx, run: Run, saved: RunRecordState): Promise<HandlerResult> {
  const { redis } = ctx.services;
  const writer = new LogStreamWriter(redis, ctx.job.id);
  const relay = new RunRelay(streamSink(writer, run.record));
  const stop = new AbortController();
  let stopped: string | undefined;
  const end = (why: string) => {
    stopped ??= why;
    stop.abort();
  };
  const onAbort = () => end(ctx.cancelled ? 'stopped by its reader' : 'aborted');
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  const readerAlive = readerPresence(redis, ctx.job.id);
  let watching = true;
  let readerTimer: NodeJS.Timeout | undefined;
  const checkReader = () => {
    readerAlive().then(
      (alive) => {
        if (!alive) end(`the reader went away (no heartbeat for ${LOG_READER_TIMEOUT_MS / 1000} s)`);
        else if (watching) readerTimer = setTimeout(checkReader, READER_CHECK_MS);
      },
      () => {
        if (watching) readerTimer = setTimeout(checkReader, READER_CHECK_MS);
      },
    );
  };
  readerTimer = setTimeout(checkReader, READER_CHECK_MS);

  const where = `Job ${run.namespace}/${run.name}`;
  try {
    const exited = await relayUntilExit(ctx, run, relay, saved.cursor, stop.signal);
    if (exited) {
      const result: HandlerResult = {
        summary: `${where} exited ${exited.exitCode}`,
        exitCode: exited.exitCode,
        jobName: run.name,
        namespace: run.namespace,
        lines: exited.cursor?.lines ?? 0,
      };
      await writer.add([{ kind: 'end', reason: result.summary! }], run.record.endWrite(result));
      return result;
    }
    if (stopped === 'aborted') {
      // Shutdown or a lost lock: not the reader's doing; the runner hands the job back or lets go.
      throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new PermanentError('aborted');
    }
    const result: HandlerResult = {
      summary:
        `relay ended: ${stopped}; ${where} goes on in the cluster, unfollowed ` +
        `(kubectl logs -f job/${run.name} -n ${run.namespace})`,
      jobName: run.name,
      namespace: run.namespace,
      running: true,
    };
    await writer.add([{ kind: 'end', reason: result.summary! }], run.record.endWrite(result));
    return result;
  } finally {
    watching = false;
    clearTimeout(readerTimer);
    ctx.signal.removeEventListener('abort', onAbort);
  }
}
