/**
 * Operator views and actions on jobs, shared by the CLI and the HTTP API: list, show (secrets
 * redacted), retry (refusing silent rollbacks), cancel, and waiting on a job with its progress
 * and log lines.
 */
import { Job, type JobState } from 'bullmq';
import type { Redis } from 'ioredis';
import { InfrastructureError, NotFoundError, RefusedError, WaitTimeoutError } from '../../core/errors.ts';
import { isConnectionError } from '../../core/redis.ts';
import { type AttemptRecord, readAttempts } from '../../jobs/attempts.ts';
import type { JobClient } from '../../jobs/client.ts';
import { contractFor, isJobType } from '../../jobs/contracts.ts';
import { jobEnvelope } from '../../jobs/envelope.ts';
import { JOB_FIELDS, keys } from '../../jobs/keys.ts';
import { laneId } from '../../jobs/lane.ts';
import { LaneStore } from '../../jobs/ordering/lane-store.ts';
import { redactSealed } from '../../jobs/redact.ts';
import { readLaneStatus } from '../../jobs/status.ts';

export const LISTABLE_STATES = [
  'active',
  'waiting',
  'delayed',
  'prioritized',
  'failed',
  'completed',
] as const;
export type ListableState = (typeof LISTABLE_STATES)[number];

/** Job types whose re-run after a newer success of the same app would roll part of the app back. */
const APP_MUTATIONS = new Set(['deploy', 'config', 'scale', 'domains', 'ports', 'properties']);

export interface JobSummary {
  id: string;
  type: string;
  state: string;
  app?: string;
  lane?: string;
  seq?: number;
  description: string;
  enqueuedAt: number;
  enqueuedBy?: string;
  attemptsMade: number;
  finishedAt?: number;
  failedReason?: string;
}

interface Parsed {
  app?: string;
  lane?: string;
  seq?: number;
  description: string;
  enqueuedBy?: string;
  payload?: unknown;
}

function parseJob(job: Job): Parsed {
  const envelope = jobEnvelope.safeParse(job.data);
  if (!envelope.success) return { description: `${job.name} (not a longshore job envelope)` };
  const base = {
    ...(envelope.data.lane ? { lane: envelope.data.lane } : {}),
    ...(envelope.data.seq ? { seq: envelope.data.seq } : {}),
    enqueuedBy: envelope.data.enqueuedBy,
    payload: envelope.data.payload,
  };
  if (!isJobType(job.name)) return { ...base, description: `${job.name} (unknown job type)` };
  const contract = contractFor(job.name);
  const parsed = contract.payload.safeParse(envelope.data.payload);
  if (!parsed.success) return { ...base, description: `${job.name} (invalid payload)` };
  const app = contract.app(parsed.data);
  return { ...base, ...(app ? { app } : {}), description: contract.describe(parsed.data) };
}

function summarize(job: Job, state: string): JobSummary {
  const parsed = parseJob(job);
  return {
    id: job.id!,
    type: job.name,
    state,
    ...(parsed.app ? { app: parsed.app } : {}),
    ...(parsed.lane ? { lane: parsed.lane } : {}),
    ...(parsed.seq ? { seq: parsed.seq } : {}),
    description: parsed.description,
    enqueuedAt: job.timestamp,
    ...(parsed.enqueuedBy ? { enqueuedBy: parsed.enqueuedBy } : {}),
    attemptsMade: job.attemptsMade,
    ...(job.finishedOn ? { finishedAt: job.finishedOn } : {}),
    ...(job.failedReason ? { failedReason: job.failedReason } : {}),
  };
}

function bullState(
  state: ListableState,
): 'active' | 'wait' | 'delayed' | 'prioritized' | 'failed' | 'completed' {
  return state === 'waiting' ? 'wait' : state;
}

/** Jobs in the given states, newest first; with `app`, only that app's jobs (scans up to 5,000 per state). */
export async function listJobs(
  client: JobClient,
  options: { states?: ListableState[]; app?: string; limit?: number },
): Promise<JobSummary[]> {
  const states = options.states?.length ? options.states : [...LISTABLE_STATES];
  const limit = options.limit ?? 50;
  const scan = options.app ? 5_000 : limit;
  const all: JobSummary[] = [];
  for (const state of states) {
    const jobs = await client.queue.getJobs([bullState(state)], 0, scan - 1, false);
    for (const job of jobs) {
      if (!job?.id) continue;
      const summary = summarize(job, state);
      if (!options.app || summary.app === options.app) all.push(summary);
    }
  }
  return all.sort((a, b) => b.enqueuedAt - a.enqueuedAt).slice(0, limit);
}

export interface JobDetails extends JobSummary {
  payload: unknown;
  progress: unknown;
  returnValue: unknown;
  attemptsStarted: number;
  maxAttempts: number;
  stacktrace: string[];
  logs: string[];
  attempts: AttemptRecord[];
  /** For queued ordered jobs: how many jobs of the lane go first, and the head. */
  lanePosition?: { ahead: number; head: string };
}

async function loadJob(client: JobClient, id: string): Promise<Job> {
  const job = await Job.fromId(client.queue, id);
  if (!job) throw new NotFoundError(`no job ${id} (never existed, or removed after its retention period)`);
  return job;
}

export async function showJob(client: JobClient, redis: Redis, id: string): Promise<JobDetails> {
  const job = await loadJob(client, id);
  const state = await job.getState();
  const summary = summarize(job, state);
  const [{ logs }, attempts] = await Promise.all([
    client.queue.getJobLogs(id, 0, -1, true),
    readAttempts(redis, id),
  ]);
  let lanePosition: JobDetails['lanePosition'];
  if (summary.lane && state !== 'completed' && state !== 'failed') {
    const pending = await new LaneStore(redis).pending(summary.lane);
    const index = pending.indexOf(id);
    if (index >= 0) lanePosition = { ahead: index, head: pending[0]! };
  }
  return {
    ...summary,
    payload: redactSealed(parseJob(job).payload ?? job.data),
    progress: job.progress,
    returnValue: redactSealed(job.returnvalue),
    attemptsStarted: job.attemptsStarted,
    maxAttempts: job.opts.attempts ?? 1,
    stacktrace: job.stacktrace ?? [],
    logs,
    attempts,
    ...(lanePosition ? { lanePosition } : {}),
  };
}

export interface RetryOutcome {
  id: string;
  retried: boolean;
  reason?: string;
}

/**
 * Why re-running `job` now would roll its app back, or undefined. A failed mutation retried after
 * a newer mutation of the same app succeeded would re-apply the older change on top of it.
 */
async function rollbackRisk(redis: Redis, job: Job): Promise<string | undefined> {
  const parsed = parseJob(job);
  if (!parsed.app || !parsed.lane || !APP_MUTATIONS.has(job.name)) return undefined;
  const status = await readLaneStatus(redis, laneId({ kind: 'app', name: parsed.app }));
  if (!status?.lastSuccessSeq || !parsed.seq || status.lastSuccessSeq <= parsed.seq) return undefined;
  const image = (parsed.payload as { image?: string } | undefined)?.image;
  const imageNote =
    job.name === 'deploy' && image && status.image && image !== status.image
      ? ` (image ${image} over the current ${status.image})`
      : '';
  return (
    `a newer ${status.lastSuccessType ?? 'job'} of ${parsed.app} (${status.lastSuccessJobId}) already succeeded; ` +
    `retrying ${job.id} would re-apply this older ${job.name}${imageNote}. Pass --force to do it anyway`
  );
}

export async function retryJob(
  client: JobClient,
  redis: Redis,
  id: string,
  force: boolean,
): Promise<RetryOutcome> {
  const job = await loadJob(client, id);
  const state = await job.getState();
  if (state !== 'failed') throw new RefusedError(`job ${id} is ${state}; only failed jobs can be retried`);
  const risk = await rollbackRisk(redis, job);
  if (risk && !force) return { id, retried: false, reason: risk };
  // The done marker answers duplicate deliveries of a finished job; a retry must run it for real.
  await redis.hdel(keys.job(id), JOB_FIELDS.done);
  await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
  return { id, retried: true, ...(risk ? { reason: `forced: ${risk}` } : {}) };
}

export async function retryAll(
  client: JobClient,
  redis: Redis,
  options: { app?: string; force: boolean },
): Promise<RetryOutcome[]> {
  const failed = await listJobs(client, {
    states: ['failed'],
    ...(options.app ? { app: options.app } : {}),
    limit: 5_000,
  });
  const outcomes: RetryOutcome[] = [];
  // Oldest first, so the retried jobs re-enter their lanes in their original order.
  for (const job of failed.reverse()) {
    try {
      outcomes.push(await retryJob(client, redis, job.id, options.force));
    } catch (err) {
      outcomes.push({ id: job.id, retried: false, reason: (err as Error).message });
    }
  }
  return outcomes;
}

export interface CancelOutcome {
  id: string;
  action: 'removed' | 'cancel-requested';
  previousState: string;
}

export async function cancelJob(client: JobClient, redis: Redis, id: string): Promise<CancelOutcome> {
  const job = await loadJob(client, id);
  const state = await job.getState();
  if (state === 'completed' || state === 'failed')
    throw new RefusedError(`job ${id} already ${state}; nothing to cancel`);
  if (state === 'active') {
    const receivers = await redis.publish(keys.cancelChannel, id);
    if (receivers === 0) throw new RefusedError(`job ${id} is active but no worker is listening for cancels`);
    return { id, action: 'cancel-requested', previousState: state };
  }
  const parsed = parseJob(job);
  try {
    await job.remove();
  } catch (err) {
    throw new RefusedError(
      `job ${id} could not be removed (a worker just took it?): ${(err as Error).message}`,
    );
  }
  if (parsed.lane) {
    const supersedeKey = isJobType(job.name) ? (contractFor(job.name).supersedeKey ?? '') : '';
    await new LaneStore(redis).unreserve(parsed.lane, id, supersedeKey);
  }
  return { id, action: 'removed', previousState: state };
}

export interface FinalState {
  id: string;
  state: 'completed' | 'failed';
  result?: unknown;
  failedReason?: string;
  /** Set when the job was superseded and the wait followed the newer job. */
  followed?: string[];
}

export interface WaitCallbacks {
  onLog?(line: string): void;
  onProgress?(progress: unknown): void;
  onState?(state: JobState | 'unknown'): void;
  onFollow?(from: string, to: string): void;
  /** Redis stopped answering; the wait goes on, retrying. Called once per outage. */
  onRedisLost?(err: Error): void;
  /** Redis answers again after an outage reported by onRedisLost. */
  onRedisBack?(downForMs: number): void;
}

/** How long a wait rides out a Redis outage (on top of any --timeout) before it gives up. */
export const WAIT_MAX_OUTAGE_MS = 120_000;
/** Longest pause between two reads while Redis is gone (the client reconnects meanwhile). */
const OUTAGE_RETRY_MAX_MS = 1_000;

/**
 * Polls a job until it ends, reporting new log lines and progress. A superseded job is followed to
 * the job that superseded it. Polling (not QueueEvents) keeps working across Redis restarts: a
 * read that fails because Redis is unreachable means "not yet", and is retried until Redis is back,
 * the timeout passes, or the outage lasts longer than `maxOutageMs`. The job goes on regardless.
 */
export async function waitForJob(
  client: JobClient,
  id: string,
  callbacks: WaitCallbacks = {},
  options: { pollMs?: number; timeoutMs?: number; maxOutageMs?: number } = {},
): Promise<FinalState> {
  const pollMs = options.pollMs ?? 150;
  const maxOutageMs = options.maxOutageMs ?? WAIT_MAX_OUTAGE_MS;
  const deadline = options.timeoutMs ? Date.now() + options.timeoutMs : Number.POSITIVE_INFINITY;
  const followed: string[] = [];
  let current = id;
  let logOffset = 0;
  let lastProgress = '';
  let lastState = '';
  let outageSince: number | undefined;
  let outageRetries = 0;
  while (Date.now() < deadline) {
    let job: Job;
    let state: JobState | 'unknown';
    try {
      job = await loadJob(client, current);
      state = await job.getState();
      if (state !== lastState) {
        lastState = state;
        callbacks.onState?.(state);
      }
      const { logs } = await client.queue.getJobLogs(current, logOffset, -1, true);
      logOffset += logs.length;
      for (const line of logs) callbacks.onLog?.(line);
      if (state === 'completed' || state === 'failed') {
        // The job was read before its state: read it again for the result or reason it ended with.
        job = await loadJob(client, current);
      }
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      const now = Date.now();
      if (outageSince === undefined) {
        outageSince = now;
        outageRetries = 0;
        callbacks.onRedisLost?.(err as Error);
      } else if (now - outageSince > maxOutageMs) {
        throw new InfrastructureError(
          `Redis did not answer for ${Math.round((now - outageSince) / 1000)} s; stopped waiting for job ${current}, ` +
            `which goes on (see jobs:show ${current} once Redis is back)`,
          { cause: err },
        );
      }
      outageRetries += 1;
      const pause = Math.min(pollMs * 2 ** Math.min(outageRetries, 6), OUTAGE_RETRY_MAX_MS);
      await new Promise((r) => setTimeout(r, Math.max(0, Math.min(pause, deadline - Date.now()))));
      continue;
    }
    if (outageSince !== undefined) {
      callbacks.onRedisBack?.(Date.now() - outageSince);
      outageSince = undefined;
    }
    const progress = JSON.stringify(job.progress ?? null);
    if (progress !== lastProgress && job.progress !== 0) {
      lastProgress = progress;
      callbacks.onProgress?.(job.progress);
    }
    if (state === 'completed') {
      const result = job.returnvalue as { outcome?: string; supersededBy?: string } | undefined;
      if (result?.outcome === 'superseded' && result.supersededBy) {
        callbacks.onFollow?.(current, result.supersededBy);
        followed.push(result.supersededBy);
        current = result.supersededBy;
        logOffset = 0;
        lastProgress = '';
        lastState = '';
        continue;
      }
      return { id: current, state, result: job.returnvalue, ...(followed.length ? { followed } : {}) };
    }
    if (state === 'failed') {
      return { id: current, state, failedReason: job.failedReason, ...(followed.length ? { followed } : {}) };
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new WaitTimeoutError(
    `job ${current} did not finish within ${options.timeoutMs} ms; it goes on (see jobs:show ${current})`,
  );
}
