/**
 * The BullMQ processor of the fleet: validates a job, takes its turn in its lane, runs its handler
 * and records the outcome. The ordering protocol is described in docs/ordering.md; in short:
 *
 *   picked ─► valid? ──no──► fail at once (UnrecoverableError), leave the lane
 *               │yes
 *               ▼
 *           head of lane? ──no──► park: back to `delayed`, promoted when the head finishes
 *               │yes
 *               ▼
 *           superseded? ──yes──► complete as superseded, leave the lane
 *               │no
 *               ▼
 *           handler ──ok──► finish (done marker + projection), leave the lane, promote next
 *               │error
 *               ▼
 *           transient and attempts left? ──yes──► retry later, keep the lane's head
 *               │no
 *               ▼
 *           finish as failed, leave the lane (later jobs of the app go on), promote next
 */
import { DelayedError, Job, type Queue, UnrecoverableError, WaitingError } from 'bullmq';
import type { Redis } from 'ioredis';
import { InvalidInputError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { JobContract, JobType } from '../jobs/contract.ts';
import { type JobEnvelope, jobEnvelope } from '../jobs/envelope.ts';
import { JOB_RECORD_TTL_SECONDS, keys } from '../jobs/keys.ts';
import { laneId } from '../jobs/lane.ts';
import type { LaneStore } from '../jobs/ordering/lane-store.ts';
import { issuesOf, validateJob } from '../jobs/validate.ts';
import { type AttemptRecord, parseAttempts, type StoredAttempt } from './attempts.ts';
import { classifyError } from './failure.ts';
import type { HandlerContext, HandlerResult, JobInfo, WorkerServices } from './handler.ts';
import type { HandlerRegistry } from './handler-registry.ts';
import type { JobMetricOutcome, WorkerMetrics } from './metrics.ts';

/** First and longest wait of a parked job before it looks at its lane again (promotion is the fast path). */
export const PARK_BASE_MS = 500;
export const PARK_MAX_MS = 30_000;

const ERROR_TEXT_MAX = 2_000;

export type AbortKind = 'shutdown' | 'cancel' | 'lock-lost';

export class JobAbort extends Error {
  constructor(
    readonly kind: AbortKind,
    message: string,
  ) {
    super(message);
    this.name = 'JobAbort';
  }
}

/** What a job's done marker holds: a duplicate delivery answers from it instead of running again. */
interface DoneMarker {
  outcome: 'completed' | 'failed' | 'superseded';
  result?: unknown;
  error?: string;
  finishedAt: number;
}

export interface JobRunnerDeps {
  lanes: LaneStore;
  registry: HandlerRegistry;
  services: WorkerServices;
  queue: Queue;
  redis: Redis;
  logger: Logger;
  metrics: WorkerMetrics;
  workerName: string;
  reservationGraceMs: number;
}

interface Running {
  controller: AbortController;
}

export class JobRunner {
  private readonly running = new Map<string, Running>();

  constructor(private readonly deps: JobRunnerDeps) {}

  get activeCount(): number {
    return this.running.size;
  }

  /** Aborts a running job's handler; false when this process is not running it. */
  abort(jobId: string, kind: AbortKind, message: string): boolean {
    const run = this.running.get(jobId);
    if (!run || run.controller.signal.aborted) return false;
    run.controller.abort(new JobAbort(kind, message));
    return true;
  }

  abortAll(kind: AbortKind, message: string): number {
    let count = 0;
    for (const id of this.running.keys()) if (this.abort(id, kind, message)) count++;
    return count;
  }

  readonly process = async (job: Job, token?: string, signal?: AbortSignal): Promise<unknown> => {
    const { metrics } = this.deps;
    const jobId = job.id!;
    const log = this.deps.logger.child({ jobId, type: job.name });

    const envelope = jobEnvelope.safeParse(job.data);
    if (!envelope.success) {
      metrics.jobs.inc({ type: job.name, outcome: 'invalid' });
      const message = new InvalidInputError(issuesOf(envelope.error), 'job data').message;
      log.warn({ err: message }, 'job refused: data is not a longshore job envelope');
      throw new UnrecoverableError(message);
    }
    let valid: { type: JobType; contract: JobContract<unknown>; payload: unknown };
    try {
      valid = validateJob(job.name, envelope.data.payload);
    } catch (err) {
      metrics.jobs.inc({ type: job.name, outcome: 'invalid' });
      log.warn({ err: (err as Error).message }, 'job refused: invalid payload');
      if (envelope.data.lane)
        await this.leaveLane(job, envelope.data.lane, 'failed', { error: (err as Error).message });
      throw new UnrecoverableError((err as Error).message);
    }

    const { type, contract, payload } = valid;
    const laneOfPayload = contract.lane(payload);
    const lane = laneOfPayload ? laneId(laneOfPayload) : undefined;
    if (envelope.data.lane && envelope.data.lane !== lane) {
      const message = `job data names lane ${envelope.data.lane} but its payload belongs to ${lane ?? 'no lane'}`;
      metrics.jobs.inc({ type, outcome: 'invalid' });
      await this.leaveLane(job, envelope.data.lane, 'failed', { error: message });
      throw new UnrecoverableError(message);
    }
    const app = contract.app(payload);
    const jobLog = log.child({ ...(app ? { app } : {}), ...(lane ? { lane } : {}) });
    const attemptStart: StoredAttempt = {
      worker: this.deps.workerName,
      pid: process.pid,
      startedAt: Date.now(),
    };

    let seq: number | undefined;
    let previousAttempts: AttemptRecord[];
    if (lane) {
      const turn = await this.deps.lanes.acquire({
        lane,
        jobId,
        jobType: type,
        ...(contract.supersedeKey ? { supersedeKey: contract.supersedeKey } : {}),
        attempt: JSON.stringify(attemptStart),
        graceMs: this.deps.reservationGraceMs,
      });
      if (turn.kind === 'done') return this.answerDuplicate(type, turn.result);
      if (turn.kind === 'wait') return this.park(job, token, lane, type, turn.head);
      if (turn.kind === 'superseded') {
        const done: DoneMarker = {
          outcome: 'superseded',
          result: { supersededBy: turn.by },
          finishedAt: Date.now(),
        };
        const finished = await this.deps.lanes.finish({
          jobId,
          lane,
          ...(contract.supersedeKey ? { supersedeKey: contract.supersedeKey } : {}),
          doneValue: JSON.stringify(done),
          status: {
            lastJobId: jobId,
            lastType: type,
            lastOutcome: 'superseded',
            lastError: '',
            lastFinishedAt: Date.now(),
          },
        });
        await job.log(
          `superseded by ${turn.by}, a newer ${type} of the same app queued behind it; nothing was done`,
        );
        metrics.jobs.inc({ type, outcome: 'superseded' });
        jobLog.info({ supersededBy: turn.by }, 'job superseded');
        await this.promote(finished.next, finished.nextDelayed);
        return { outcome: 'superseded', supersededBy: turn.by };
      }
      seq = turn.seq;
      previousAttempts = parseAttempts(turn.previousAttempts);
      if (turn.requeued)
        await job.log(
          'this job was not in its lane (retried after failing for good, or added late): it joined the end of the lane',
        );
    } else {
      const [[, doneRaw], [, attemptsRaw]] = (await this.deps.redis
        .multi()
        .get(keys.jobDone(jobId))
        .lrange(keys.jobAttempts(jobId), 0, -1)
        .rpush(keys.jobAttempts(jobId), JSON.stringify(attemptStart))
        .expire(keys.jobAttempts(jobId), JOB_RECORD_TTL_SECONDS)
        .exec()) as [[null, string | null], [null, string[]]];
      if (doneRaw) return this.answerDuplicate(type, doneRaw);
      previousAttempts = parseAttempts(attemptsRaw);
    }

    metrics.startDelay.observe(
      { type },
      Math.max(0, attemptStart.startedAt - envelope.data.enqueuedAt) / 1000,
    );
    const info: JobInfo = {
      id: jobId,
      type,
      ...(lane ? { lane } : {}),
      ...(seq !== undefined ? { seq } : {}),
      attempt: previousAttempts.length + 1,
      enqueuedBy: envelope.data.enqueuedBy,
      enqueuedAt: envelope.data.enqueuedAt,
    };
    return this.runHandler(job, token, signal, {
      info,
      envelope: envelope.data,
      contract,
      payload,
      previousAttempts,
      attemptStart,
      jobLog,
      app,
    });
  };

  private async runHandler(
    job: Job,
    token: string | undefined,
    bullSignal: AbortSignal | undefined,
    run: {
      info: JobInfo;
      envelope: JobEnvelope;
      contract: JobContract<unknown>;
      payload: unknown;
      previousAttempts: AttemptRecord[];
      attemptStart: StoredAttempt;
      jobLog: Logger;
      app: string | undefined;
    },
  ): Promise<unknown> {
    const { metrics } = this.deps;
    const { info, jobLog } = run;
    const controller = new AbortController();
    const onBullAbort = () =>
      controller.abort(new JobAbort('cancel', `cancelled: ${String(bullSignal?.reason ?? 'by the worker')}`));
    bullSignal?.addEventListener('abort', onBullAbort, { once: true });
    this.running.set(info.id, { controller });
    metrics.active.inc();
    const started = Date.now();
    jobLog.info({ attempt: info.attempt, seq: info.seq }, 'job started');
    if (info.attempt > 1) {
      const last = run.previousAttempts.at(-1);
      await job.log(
        `attempt ${info.attempt}; previous attempt ${last?.outcome ? `ended: ${last.outcome}${last.error ? ` (${last.error})` : ''}` : 'was interrupted (its worker stopped)'}`,
      );
    }

    try {
      const handler = this.deps.registry.get(info.type);
      const ctx = this.context(job, controller.signal, run);
      const result = ((await handler(ctx)) ?? {}) as HandlerResult;
      const seconds = (Date.now() - started) / 1000;
      await this.complete(run, result);
      metrics.jobs.inc({ type: info.type, outcome: 'completed' });
      metrics.duration.observe({ type: info.type, outcome: 'completed' }, seconds);
      jobLog.info({ seconds, attempt: info.attempt }, 'job completed');
      return result;
    } catch (err) {
      const seconds = (Date.now() - started) / 1000;
      const reason = controller.signal.aborted ? (controller.signal.reason as JobAbort) : undefined;
      if (reason?.kind === 'shutdown') {
        await this.closeAttempt(info, run.attemptStart, 'handed-back', reason.message);
        metrics.jobs.inc({ type: info.type, outcome: 'handed_back' });
        jobLog.warn({ seconds }, 'job handed back: worker shutting down');
        await job.moveToWait(token);
        throw new WaitingError();
      }
      if (reason?.kind === 'lock-lost') {
        // Another worker owns the job now (stall recovery); record nothing else and let it run.
        await this.closeAttempt(info, run.attemptStart, 'lock-lost', reason.message).catch(() => undefined);
        jobLog.error({ seconds }, 'job lock lost; stopped so that only the new owner runs it');
        throw err;
      }
      const cancelled = reason?.kind === 'cancel';
      const classified = cancelled ? { transient: false, message: reason.message } : classifyError(err);
      const message = classified.message.slice(0, ERROR_TEXT_MAX);
      const final = !classified.transient || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const outcome: JobMetricOutcome = cancelled ? 'cancelled' : final ? 'failed' : 'retried';
      metrics.jobs.inc({ type: info.type, outcome });
      metrics.duration.observe({ type: info.type, outcome }, seconds);
      if (!final) {
        await this.closeAttempt(info, run.attemptStart, 'retrying', message);
        await job.log(
          `attempt ${info.attempt} failed (transient, retry ${job.attemptsMade + 1} of ${(job.opts.attempts ?? 1) - 1}): ${message}`,
        );
        jobLog.warn({ err: message, attempt: info.attempt }, 'job failed, will retry');
        throw err;
      }
      await this.fail(job, run, message, cancelled ? 'cancelled' : 'failed');
      jobLog.error({ err: message, attempt: info.attempt, transient: classified.transient }, 'job failed');
      throw new UnrecoverableError(message);
    } finally {
      bullSignal?.removeEventListener('abort', onBullAbort);
      this.running.delete(info.id);
      metrics.active.dec();
    }
  }

  private context(
    job: Job,
    signal: AbortSignal,
    run: { info: JobInfo; payload: unknown; previousAttempts: AttemptRecord[]; jobLog: Logger },
  ): HandlerContext<unknown> {
    const { redis } = this.deps;
    const stepsKey = keys.jobSteps(run.info.id);
    return {
      job: run.info,
      payload: run.payload,
      idempotencyKey: run.info.id,
      previousAttempts: run.previousAttempts,
      signal,
      logger: run.jobLog,
      services: this.deps.services,
      log: async (line) => {
        await job.log(line);
      },
      progress: async (progress) => {
        await job.updateProgress({ ...progress });
      },
      step: async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
        const prior = await redis.hget(stepsKey, name);
        if (prior !== null) return (JSON.parse(prior) as { value: T }).value;
        const value = await fn();
        await redis
          .multi()
          .hset(stepsKey, name, JSON.stringify({ value: value ?? null, at: Date.now() }))
          .expire(stepsKey, JOB_RECORD_TTL_SECONDS)
          .exec();
        return value;
      },
    };
  }

  private async complete(
    run: {
      info: JobInfo;
      contract: JobContract<unknown>;
      payload: unknown;
      attemptStart: StoredAttempt;
      app: string | undefined;
    },
    result: HandlerResult,
  ): Promise<void> {
    const now = Date.now();
    const done: DoneMarker = { outcome: 'completed', result, finishedAt: now };
    const attempt: StoredAttempt = { ...run.attemptStart, endedAt: now, outcome: 'completed' };
    const { info } = run;
    if (!info.lane) {
      await this.closeUnordered(info.id, done, attempt);
      return;
    }
    const image =
      result.image ?? (info.type === 'deploy' ? (run.payload as { image?: string }).image : undefined);
    const finished = await this.deps.lanes.finish({
      jobId: info.id,
      lane: info.lane,
      ...(run.contract.supersedeKey ? { supersedeKey: run.contract.supersedeKey } : {}),
      doneValue: JSON.stringify(done),
      attempt: JSON.stringify(attempt),
      status: {
        lastJobId: info.id,
        lastType: info.type,
        lastOutcome: 'completed',
        lastError: '',
        lastFinishedAt: now,
        lastSuccessJobId: info.id,
        lastSuccessType: info.type,
        lastSuccessSeq: info.seq ?? 0,
        lastSuccessAt: now,
        ...(typeof result.revision === 'number' ? { revision: result.revision } : {}),
        ...(image ? { image } : {}),
      },
    });
    await this.promote(finished.next, finished.nextDelayed);
  }

  private async fail(
    job: Job,
    run: { info: JobInfo; contract: JobContract<unknown>; attemptStart: StoredAttempt },
    message: string,
    outcome: 'failed' | 'cancelled',
  ): Promise<void> {
    const now = Date.now();
    const done: DoneMarker = { outcome: 'failed', error: message, finishedAt: now };
    const attempt: StoredAttempt = { ...run.attemptStart, endedAt: now, outcome, error: message };
    if (!run.info.lane) {
      await this.closeUnordered(run.info.id, done, attempt);
      return;
    }
    await this.leaveLane(job, run.info.lane, 'failed', {
      error: message,
      attempt,
      ...(run.contract.supersedeKey ? { supersedeKey: run.contract.supersedeKey } : {}),
    });
  }

  /** A job of `lane` ended for good without completing: free the lane for the jobs behind it. */
  private async leaveLane(
    job: Job,
    lane: string,
    outcome: 'failed',
    extra: { error: string; attempt?: StoredAttempt; supersedeKey?: string },
  ): Promise<void> {
    const now = Date.now();
    const done: DoneMarker = { outcome, error: extra.error, finishedAt: now };
    const finished = await this.deps.lanes.finish({
      jobId: job.id!,
      lane,
      ...(extra.supersedeKey ? { supersedeKey: extra.supersedeKey } : {}),
      doneValue: JSON.stringify(done),
      ...(extra.attempt ? { attempt: JSON.stringify(extra.attempt) } : {}),
      status: {
        lastJobId: job.id!,
        lastType: job.name,
        lastOutcome: outcome,
        lastError: extra.error.slice(0, ERROR_TEXT_MAX),
        lastFinishedAt: now,
      },
    });
    await this.promote(finished.next, finished.nextDelayed);
  }

  private async closeUnordered(jobId: string, done: DoneMarker, attempt: StoredAttempt): Promise<void> {
    await this.deps.redis
      .multi()
      .set(keys.jobDone(jobId), JSON.stringify(done), 'EX', JOB_RECORD_TTL_SECONDS)
      .lset(keys.jobAttempts(jobId), -1, JSON.stringify(attempt))
      .exec();
  }

  private async closeAttempt(
    info: JobInfo,
    start: StoredAttempt,
    outcome: StoredAttempt['outcome'],
    error?: string,
  ): Promise<void> {
    const record: StoredAttempt = {
      ...start,
      endedAt: Date.now(),
      ...(outcome ? { outcome } : {}),
      ...(error ? { error } : {}),
    };
    await this.deps.redis.lset(keys.jobAttempts(info.id), -1, JSON.stringify(record));
  }

  /** A job already finished was delivered again (crash between our record and BullMQ's): answer from the record. */
  private answerDuplicate(type: string, raw: string): unknown {
    this.deps.metrics.jobs.inc({ type, outcome: 'duplicate' });
    const done = JSON.parse(raw) as DoneMarker;
    if (done.outcome === 'failed') throw new UnrecoverableError(done.error ?? 'failed');
    return done.outcome === 'superseded'
      ? { outcome: 'superseded', ...(done.result as object) }
      : done.result;
  }

  /**
   * Not this job's turn: put it back as delayed and let the head's finish promote it. The delay is
   * only the fallback for a lost promotion (the head's worker died), growing with each park.
   */
  private async park(
    job: Job,
    token: string | undefined,
    lane: string,
    type: string,
    head: string,
  ): Promise<never> {
    this.deps.metrics.orderingWaits.inc({ type });
    const parks = Math.max(1, (job.attemptsStarted ?? 1) - (job.attemptsMade ?? 0));
    const delay = Math.min(PARK_BASE_MS * 2 ** Math.min(parks - 1, 10), PARK_MAX_MS);
    await job.moveToDelayed(Date.now() + delay, token);
    // The head may have finished between our acquire and the move: then nobody would promote us.
    if (await this.deps.lanes.isHead(lane, job.id!, this.deps.reservationGraceMs)) {
      await job.promote().catch(() => undefined);
    }
    this.deps.logger.debug({ jobId: job.id, lane, head, delay }, 'job parked behind its lane head');
    throw new DelayedError();
  }

  private async promote(next: string | undefined, delayed: boolean): Promise<void> {
    if (!next || !delayed) return;
    const job = await Job.fromId(this.deps.queue, next);
    // It may have been promoted by its own worker already: that is the same outcome.
    await job?.promote().catch(() => undefined);
  }
}
