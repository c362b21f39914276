/**
 * Following a one-off Job's pod to its end (a `run`, or a deploy's release task): wait for the pod,
 * follow its log through a relay (relay.ts) with a cursor that makes a resumed attempt repeat no
 * line (log-cursor.ts), and return the container's exit code. A pod that cannot start
 * (ErrImagePull, CreateContainerConfigError…) has its Job deleted and throws `JobFailedError`, as
 * does a Job that ended without an exit code (DeadlineExceeded, its pod gone).
 */
import { setTimeout as pause } from 'node:timers/promises';
import { PermanentError } from '../../core/errors.ts';
import { kubeStatusOf, mapKubeError } from '../../kube/errors.ts';
import type { HandlerContext } from '../handler.ts';
import type { RunJobApi } from './job-api.ts';
import { LineFilter, type RelayCursor, sinceTimeOf, startCursor } from './log-cursor.ts';
import { readPodLog } from './relay.ts';
import { type RunState, runState } from './run-state.ts';

/** The Job followed: where it is, and what forgets it when it is deleted before its command ran. */
export interface FollowedJob {
  api: RunJobApi;
  record: { forgetJob(): Promise<void> };
  name: string;
  namespace: string;
  uid: string;
  /** Its one container, whose log is followed. */
  container: string;
  /** How messages name it: `run shop-run-x`, `release task shop-release-3`. */
  label: string;
}

/** Where the lines go: RunRelay (relay.ts). */
export interface LineRelay {
  relay(filter: LineFilter, lines: readonly string[]): void;
  flushed(): Promise<void>;
}

/** The Job ended, or will never start, without an exit code of its command. */
export class JobFailedError extends PermanentError {
  constructor(
    message: string,
    /** DeadlineExceeded, ErrImagePull, CreateContainerConfigError, JobDeleted… */
    readonly reason: string,
  ) {
    super(message);
  }
}

/**
 * How often the Job and its pod are read while the pod starts: soon at first (most runs start within
 * a second, and an image pull's own error shows only until the back-off replaces it), then every
 * POLL_MS.
 */
export const FIRST_POLL_MS = 100;
export const POLL_MS = 500;
/**
 * While following, the pod is read this often; a follow still open two reads after its container
 * ended is closed (a connection the server never ended), and what it missed is read once.
 */
const WATCHDOG_MS = 5_000;
const WATCHDOG_GRACE = 2;

/** A pause that a stop ends early. */
export const sleep = (ms: number, signal: AbortSignal) =>
  pause(ms, undefined, { signal }).catch(() => undefined);

export async function readState(run: FollowedJob): Promise<RunState> {
  const job = await run.api.read();
  if (!job)
    return {
      kind: 'failed',
      reason: 'JobDeleted',
      message: 'the Job was deleted while the run was followed',
      cannotStart: false,
    };
  return runState(job, await run.api.pods(run.uid));
}

/** A log read the server refused for now (the container not started yet, or gone with its pod). */
const logNotThere = (err: unknown) => [400, 404].includes(kubeStatusOf(err)?.code ?? 0);

/**
 * Reads the Job until its pod is past starting, logging each new detail of the wait (pulling,
 * scheduling) once, polling soon at first and then every POLL_MS. Returns that state; undefined when
 * `stop` ended the wait. A pod that can never start has its Job deleted, so it does not wait for an
 * image or a Secret until its deadline (a day by default; its TTL only counts from then), and
 * throws `JobFailedError` with the reason.
 */
export async function awaitStarted(
  ctx: HandlerContext<unknown>,
  run: FollowedJob,
  stop: AbortSignal,
): Promise<Exclude<RunState, { kind: 'starting' | 'failed' }> | undefined> {
  let lastDetail = '';
  let pollMs = FIRST_POLL_MS;
  for (;;) {
    if (stop.aborted) return undefined;
    const state = await readState(run);
    if (state.kind === 'starting') {
      if (state.detail !== lastDetail) await ctx.log(state.detail);
      lastDetail = state.detail;
      await sleep(pollMs, stop);
      pollMs = Math.min(pollMs * 2, POLL_MS);
      continue;
    }
    if (state.kind === 'failed') {
      if (state.cannotStart) {
        await run.api.delete();
        await run.record.forgetJob();
      }
      throw new JobFailedError(
        `${run.label}: ${state.reason}: ${state.message}${state.cannotStart ? ' (the Job was deleted)' : ''}`,
        state.reason,
      );
    }
    return state;
  }
}

/**
 * Waits for the pod, follows its log, and returns the exit once the container ended; undefined when
 * `stop` ended it first. Throws for a run that cannot give an exit code.
 */
export async function relayUntilExit(
  ctx: HandlerContext<unknown>,
  run: FollowedJob,
  relay: LineRelay,
  resumeAt: RelayCursor | undefined,
  stop: AbortSignal,
): Promise<{ exitCode: number; cursor?: RelayCursor } | undefined> {
  let cursor = resumeAt;
  let followed = false;
  for (;;) {
    const state = await awaitStarted(ctx, run, stop);
    if (!state) return undefined;
    if (!state.pod || !state.podUid) return { exitCode: state.kind === 'exited' ? state.exitCode : 0 };
    const filter = new LineFilter(cursor?.pod === state.podUid ? cursor : startCursor(state.podUid));
    if (state.kind === 'running') {
      // A follow that ended while the status still says running: the kubelet is about to report the
      // exit. Read again shortly rather than at once.
      if (followed) await sleep(POLL_MS, stop);
      followed = true;
      await followPod(ctx, run, state.pod, filter, relay, stop);
      await relay.flushed();
      cursor = filter.position;
      continue;
    }
    // Exited: whatever the follow did not deliver (or all of it, for a run that ended unfollowed).
    await readLog(ctx, run, state.pod, filter, relay, false, stop);
    await relay.flushed();
    return { exitCode: state.exitCode, cursor: filter.position };
  }
}

async function readLog(
  ctx: HandlerContext<unknown>,
  run: FollowedJob,
  pod: string,
  filter: LineFilter,
  relay: LineRelay,
  follow: boolean,
  signal: AbortSignal,
): Promise<void> {
  const cluster = await ctx.services.cluster();
  const sinceTime = sinceTimeOf(filter.position);
  try {
    await readPodLog({
      kc: cluster.kube.kc,
      namespace: run.namespace,
      pod,
      container: run.container,
      follow,
      ...(sinceTime ? { sinceTime } : {}),
      onLines: (lines) => relay.relay(filter, lines),
      signal,
    });
  } catch (err) {
    if (logNotThere(err)) return;
    throw mapKubeError(err, `read the log of pod ${run.namespace}/${pod}`);
  }
}

/** Follows the pod's log until it ends, `stop`, or the container has ended but the stream has not. */
async function followPod(
  ctx: HandlerContext<unknown>,
  run: FollowedJob,
  pod: string,
  filter: LineFilter,
  relay: LineRelay,
  stop: AbortSignal,
): Promise<void> {
  const follow = new AbortController();
  const onStop = () => follow.abort();
  stop.addEventListener('abort', onStop, { once: true });
  let notRunning = 0;
  let timer: NodeJS.Timeout | undefined;
  const watch = () => {
    readState(run).then(
      (state) => {
        notRunning = state.kind === 'running' ? 0 : notRunning + 1;
        if (notRunning >= WATCHDOG_GRACE) follow.abort();
        else if (!follow.signal.aborted) timer = setTimeout(watch, WATCHDOG_MS);
      },
      () => {
        if (!follow.signal.aborted) timer = setTimeout(watch, WATCHDOG_MS);
      },
    );
  };
  timer = setTimeout(watch, WATCHDOG_MS);
  try {
    await readLog(ctx, run, pod, filter, relay, true, follow.signal);
  } finally {
    follow.abort();
    clearTimeout(timer);
    stop.removeEventListener('abort', onStop);
  }
}
