/**
 * Operator views and actions on jobs, shared by the CLI and the HTTP API: list, show (secrets
 * redacted), retry (refusing to overtake or undo newer work), cancel, and waiting on a job with its progress
 * and log lines.
 */
import { Job, type JobState } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  CancelledError,
  InfrastructureError,
  NotFoundError,
  RefusedError,
  WaitTimeoutError,
} from '../../core/errors.ts';
import { isConnectionError } from '../../core/redis.ts';
import { type NumberedAttempt, readAttempts } from '../../jobs/attempts.ts';
import type { JobClient } from '../../jobs/client.ts';
import { contractFor, countsAsNewerWork, isJobType } from '../../jobs/contracts.ts';
import { jobEnvelope } from '../../jobs/envelope-schema.ts';
import { JOB_FIELDS, keys } from '../../jobs/keys.ts';
import { laneId } from '../../jobs/lane.ts';
import { LaneStore } from '../../jobs/ordering/lane-store.ts';
import { redactSealed } from '../../jobs/redact.ts';
import { readLaneStatus } from '../../jobs/status.ts';
import { decodeLogEntry } from '../../jobs/stream-event-codec.ts';
import { eventLines, type LogEvent, type StreamEvent } from '../../jobs/stream-events.ts';

export const LISTABLE_STATES = [
  'active',
  'waiting',
  'delayed',
  'prioritized',
  'failed',
  'completed',
] as const;
export type ListableState = (typeof LISTABLE_STATES)[number];

/** Job types whose re-run after newer work of the same app would roll part of the app back. */
const APP_MUTATIONS = new Set(['deploy', 'config', 'scale', 'domains', 'ports', 'properties', 'mounts']);

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

/**
 * Jobs in the given states, newest first, across every queue shard; with `app` or `type`, only
 * that app's (or type's) jobs (scans up to 5,000 per state and shard).
 */
export async function listJobs(
  client: JobClient,
  options: { states?: ListableState[]; app?: string; type?: string; limit?: number },
): Promise<JobSummary[]> {
  const states = options.states?.length ? options.states : [...LISTABLE_STATES];
  const limit = options.limit ?? 50;
  const scan = options.app || options.type ? 5_000 : limit;
  const all: JobSummary[] = [];
  for (const state of states) {
    const perShard = await Promise.all(
      client.queues.map((queue) => queue.getJobs([bullState(state)], 0, scan - 1, false)),
    );
    for (const job of perShard.flat()) {
      if (!job?.id) continue;
      const summary = summarize(job, state);
      if ((!options.app || summary.app === options.app) && (!options.type || summary.type === options.type))
        all.push(summary);
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
  /** The job's stream as text, a line each (its log entries decoded: never the raw encoding). */
  logs: string[];
  /** The same entries as events (src/jobs/stream-events.ts), for scripts. */
  events: LogEvent[];
  attempts: NumberedAttempt[];
  /** For queued ordered jobs: how many jobs of the lane go first, and the head. */
  lanePosition?: { ahead: number; head: string };
}

async function loadJob(client: JobClient, id: string): Promise<Job> {
  const job = await Job.fromId(client.queueFor(id), id);
  if (!job) throw new NotFoundError(`no job ${id} (never existed, or removed after its retention period)`);
  return job;
}

export async function showJob(client: JobClient, redis: Redis, id: string): Promise<JobDetails> {
  const job = await loadJob(client, id);
  const state = await job.getState();
  const summary = summarize(job, state);
  const [{ logs }, attempts] = await Promise.all([
    client.queueFor(id).getJobLogs(id, 0, -1, true),
    readAttempts(redis, id),
  ]);
  const events = logs.map(decodeLogEntry);
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
    logs: events.flatMap(eventLines),
    events,
    attempts,
    ...(lanePosition ? { lanePosition } : {}),
  };
}

/** A job of the lane newer than a retried one that counts as newer work. */
export interface NewerJob {
  id: string;
  type: string;
  /** `completed` for the newer change that already succeeded; `reserved` for a slot whose job is not added yet. */
  state: string;
}

export interface RetryOutcome {
  id: string;
  retried: boolean;
  reason?: string;
  /** Why a retry was refused (or forced): the newer work it would have overtaken. */
  newer?: NewerJob[];
}

/** At most this many newer jobs are named in the refusal (all are in `newer`). */
const NEWER_NAMED_MAX = 10;

/** The position of an ordered job id `{lane}.{seq}`, which a requeued retry keeps. */
function positionOf(id: string): number | undefined {
  const match = /\.(\d+)$/.exec(id);
  return match ? Number(match[1]) : undefined;
}

/**
 * Newer work of the app that retrying `job` would undo, as a reason and a list, or undefined. A
 * retried job joins the end of its lane, so its older change would land after every newer change
 * that is still queued or running, and over the newer one that already succeeded. Newer work is
 * any job enqueued after it (a higher position) that counts as an operator change: a reconcile
 * or sync does not. See docs/ordering.md.
 */
async function newerWork(
  client: JobClient,
  redis: Redis,
  job: Job,
): Promise<{ reason: string; newer: NewerJob[] } | undefined> {
  const parsed = parseJob(job);
  const position = parsed.seq ?? positionOf(job.id!);
  if (!parsed.app || !parsed.lane || !position || !APP_MUTATIONS.has(job.name)) return undefined;
  const [status, pending] = await Promise.all([
    readLaneStatus(redis, parsed.lane),
    new LaneStore(redis).pending(parsed.lane),
  ]);

  // Still queued, delayed or running: the lane's pending set, by the position in each id.
  const behind = pending.filter((id) => id !== job.id && (positionOf(id) ?? 0) > position);
  const names = behind.length
    ? ((await behind.reduce((p, id) => p.hget(keys.job(id), 'name'), redis.pipeline()).exec()) ?? [])
    : [];
  const queued = await Promise.all(
    behind.map(async (id, i): Promise<NewerJob | undefined> => {
      const type = names[i]?.[1] as string | null | undefined;
      // A reserved slot whose producer has not added the job yet: unknown work, so it counts.
      if (!type) return { id, type: 'unknown', state: 'reserved' };
      return countsAsNewerWork(type)
        ? { id, type, state: await client.queueFor(id).getJobState(id) }
        : undefined;
    }),
  ).then((list) => list.filter((j): j is NewerJob => j !== undefined));

  // Already succeeded: the projection's last operator change (projections written before it was
  // tracked have only the last success, which counts unless it was a reconcile or sync).
  const change = status?.lastChangeJobId
    ? { id: status.lastChangeJobId, type: status.lastChangeType ?? 'job', seq: status.lastChangeSeq ?? 0 }
    : status?.lastSuccessJobId && status.lastSuccessType && countsAsNewerWork(status.lastSuccessType)
      ? { id: status.lastSuccessJobId, type: status.lastSuccessType, seq: status.lastSuccessSeq ?? 0 }
      : undefined;
  const succeeded = change && change.seq > position && change.id !== job.id ? change : undefined;
  if (!succeeded && queued.length === 0) return undefined;

  const parts: string[] = [];
  if (succeeded) parts.push(`a newer ${succeeded.type} of ${parsed.app} (${succeeded.id}) already succeeded`);
  if (queued.length) {
    const named = queued.slice(0, NEWER_NAMED_MAX).map((j) => `${j.id} (${j.type}, ${j.state})`);
    if (queued.length > NEWER_NAMED_MAX) named.push(`and ${queued.length - NEWER_NAMED_MAX} more`);
    parts.push(`newer work of ${parsed.app} is queued or running: ${named.join(', ')}`);
  }
  const image = (parsed.payload as { image?: string } | undefined)?.image;
  const imageNote =
    job.name === 'deploy' && image && status?.image && image !== status.image
      ? ` (image ${image} over the current ${status.image})`
      : '';
  const reason =
    `${parts.join(', and ')}; retrying ${job.id} would re-apply this older ${job.name}${imageNote}` +
    `${queued.length ? ' after it' : ''}. Pass --force to do it anyway (it joins the end of the lane and runs after every job queued now)`;
  return {
    reason,
    newer: [
      ...(succeeded ? [{ id: succeeded.id, type: succeeded.type, state: 'completed' }] : []),
      ...queued,
    ],
  };
}

/** What to run instead of retrying a job that held a barrier lane. */
const RETRY_INSTEAD: Record<string, string> = {
  rename:
    'e.g. apps:rename OLD NEW; if it failed after installing the new name, destroy that first (apps:destroy NEW)',
  mounts: 'storage:mount APP ENTRY:/path',
};

/** The second lane a job holds through a barrier (docs/ordering.md, "Barriers"), if any. */
function barrierLaneOf(job: Job): string | undefined {
  if (!isJobType(job.name)) return undefined;
  const contract = contractFor(job.name);
  if (!contract.barrierLane) return undefined;
  const payload = contract.payload.safeParse(jobEnvelope.safeParse(job.data).data?.payload);
  const lane = payload.success ? contract.barrierLane(payload.data) : undefined;
  return lane ? laneId(lane) : undefined;
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
  // A job that also held another lane (a rename's barrier in the new name's lane, a mount's in
  // its storage entry's) gave that lane up when it failed: retried, it would run without it, next
  // to that lane's jobs (a rename after the new name may have been taken, its saved saga skipping
  // the "already exists" check; a mount next to a storage:destroy of its entry). Such a job is
  // enqueued anew instead.
  const barrier = barrierLaneOf(job);
  if (barrier) {
    throw new RefusedError(
      `job ${id} is a ${job.name}, which cannot be retried: enqueue it again (${RETRY_INSTEAD[job.name] ?? 'the same command'}); ` +
        `it held lane ${barrier} too, and gave it up when it failed`,
    );
  }
  const risk = await newerWork(client, redis, job);
  if (risk && !force) return { id, retried: false, reason: risk.reason, newer: risk.newer };
  // The done marker answers duplicate deliveries of a finished job; a retry must run it for real.
  await redis.hdel(keys.job(id), JOB_FIELDS.done);
  await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
  return { id, retried: true, ...(risk ? { reason: `forced: ${risk.reason}`, newer: risk.newer } : {}) };
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
    const lanes = new LaneStore(redis);
    await lanes.unreserve(parsed.lane, id, supersedeKey);
    // The lane it held through a barrier goes on at once too, rather than after the grace.
    const barrier = barrierLaneOf(job);
    if (barrier) await lanes.unreserve(barrier, id);
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

/** The stream's last event: how the job (or the newer one it was followed to) ended. */
export function outcomeEvent(final: FinalState): StreamEvent {
  const followed = final.followed?.length ? { followed: final.followed } : {};
  if (final.state === 'failed')
    return {
      kind: 'outcome',
      job: final.id,
      state: 'failed',
      reason: final.failedReason ?? 'unknown reason',
      ...followed,
    };
  const summary = (final.result as { summary?: unknown } | undefined)?.summary;
  return {
    kind: 'outcome',
    job: final.id,
    state: 'completed',
    ...(typeof summary === 'string' && summary ? { summary } : {}),
    ...(final.result !== undefined && final.result !== null ? { result: final.result } : {}),
    ...followed,
  };
}

export interface WaitCallbacks {
  /**
   * The job's stream as it happens (src/jobs/stream-events.ts): its log entries decoded, state
   * changes and follows, in order; a poll's new log entries come before the state it read, so a
   * job's last lines arrive before its end. The outcome is the caller's (it has the result).
   */
  onEvent?(event: StreamEvent): void;
  /** The job's progress value (Bull Board's), when it changes; not part of the stream. */
  onProgress?(progress: unknown): void;
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
  options: {
    pollMs?: number;
    timeoutMs?: number;
    maxOutageMs?: number;
    /** Stops the wait (a client that went away); the job goes on. Rejects with CancelledError. */
    signal?: AbortSignal;
  } = {},
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
    if (options.signal?.aborted)
      throw new CancelledError(`stopped waiting for job ${current}, which goes on`);
    let job: Job;
    let state: JobState | 'unknown';
    try {
      job = await loadJob(client, current);
      state = await job.getState();
      // Read after the state: every line a finished job wrote is in this read, so it is reported
      // before the end (the state is reported after the lines, below).
      const { logs } = await client.queueFor(current).getJobLogs(current, logOffset, -1, true);
      logOffset += logs.length;
      for (const entry of logs) callbacks.onEvent?.(decodeLogEntry(entry));
      if (state !== lastState) {
        lastState = state;
        callbacks.onEvent?.({ kind: 'state', job: current, state });
      }
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
        callbacks.onEvent?.({ kind: 'follow', from: current, to: result.supersededBy });
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
