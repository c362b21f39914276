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
 *
 * This path runs for every job, so it keeps round trips and allocations down:
 *  - one script call to start; the finishing call is not awaited: it is written to the same Redis
 *    connection just before BullMQ's own completion (or failure) command, so Redis runs it first,
 *    in the same round trip, and a crash cannot record BullMQ's outcome without ours;
 *  - no child loggers (bindings are passed per line, and disabled levels cost nothing);
 *  - the processor takes no AbortSignal from BullMQ, which would allocate one per job: cancels
 *    and shutdown reach handlers through the runner's own controller.
 */
import { DelayedError, Job, type Queue, UnrecoverableError, WaitingError } from 'bullmq';
import type { Redis } from 'ioredis';
import { InvalidInputError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { type AttemptRecord, parseAttempts, type StoredAttempt } from '../jobs/attempts.ts';
import type { JobContract, JobType } from '../jobs/contract.ts';
import { supersessionOf } from '../jobs/contracts.ts';
import { jobEnvelope } from '../jobs/envelope.ts';
import { JOB_RECORD_TTL_SECONDS, keys } from '../jobs/keys.ts';
import { laneId } from '../jobs/lane.ts';
import type { LaneStore } from '../jobs/ordering/lane-store.ts';
import {
  type ReleaseReport,
  readLaneStatus,
  statusOfRelease,
  statusOnEnd,
  statusOnSuccess,
} from '../jobs/status.ts';
import { issuesOf, validateJob } from '../jobs/validate.ts';
import { classifyError } from './failure.ts';
import type { HandlerContext, HandlerResult, JobInfo, WorkerServices } from './handler.ts';
import type { HandlerRegistry } from './handler-registry.ts';
import type { JobMetricOutcome, WorkerMetrics } from './metrics.ts';

/** First and longest wait of a parked job before it looks at its lane again (promotion is the fast path). */
export const PARK_BASE_MS = 500;
export const PARK_MAX_MS = 30_000;

const ERROR_TEXT_MAX = 2_000;

/** The supersession arguments of each job type, built once (this path runs for every job). */
const SUPERSESSION = new Map<JobType, ReturnType<typeof supersessionOf>>();
function supersession(type: JobType, contract: JobContract<unknown>): ReturnType<typeof supersessionOf> {
  let found = SUPERSESSION.get(type);
  if (!found) {
    found = supersessionOf(contract);
    SUPERSESSION.set(type, found);
  }
  return found;
}

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

/**
 * Abort state of a running job. The AbortController is created only when the handler asks for its
 * signal: most fast jobs never do, and one controller per job is measurable at thousands of jobs/s.
 */
class Abortable {
  reason?: JobAbort;
  private controller?: AbortController;

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.reason && !this.controller.signal.aborted) this.controller.abort(this.reason);
    return this.controller.signal;
  }

  abort(reason: JobAbort): boolean {
    if (this.reason) return false;
    this.reason = reason;
    this.controller?.abort(reason);
    return true;
  }
}

/** A job's done marker (`lsDone`): a duplicate delivery answers from it instead of running again. */
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

/** Everything known about a job once it is this worker's turn to run it. */
interface Turn {
  info: JobInfo;
  contract: JobContract<unknown>;
  payload: unknown;
  app: string | undefined;
  /** Position the producer reserved (the job id's), kept when a retry requeues the job. */
  enqueuedSeq: number | undefined;
  /** It rejoined its lane at the tail (a retry after failing for good, or added late). */
  requeued: boolean;
  previousAttempts: AttemptRecord[];
  attemptStart: StoredAttempt;
  /** What the handler reported about its app's release, for the projection (`ctx.report`). */
  release?: ReleaseReport;
}

/** Closing record of an attempt, by its number. */
function attemptEnd(
  turn: Turn,
  outcome: StoredAttempt['outcome'],
  error?: string,
): { number: number; record: string } {
  const record: StoredAttempt = {
    ...turn.attemptStart,
    endedAt: Date.now(),
    ...(outcome ? { outcome } : {}),
    ...(error ? { error } : {}),
  };
  return { number: turn.info.attempt, record: JSON.stringify(record) };
}

export class JobRunner {
  private readonly running = new Map<string, Abortable>();

  constructor(private readonly deps: JobRunnerDeps) {}

  get activeCount(): number {
    return this.running.size;
  }

  /** Aborts a running job's handler; false when this process is not running it. */
  abort(jobId: string, kind: AbortKind, message: string): boolean {
    return this.running.get(jobId)?.abort(new JobAbort(kind, message)) ?? false;
  }

  abortAll(kind: AbortKind, message: string): number {
    let count = 0;
    for (const id of this.running.keys()) if (this.abort(id, kind, message)) count++;
    return count;
  }

  readonly process = async (job: Job, token?: string): Promise<unknown> => {
    const { metrics, logger } = this.deps;
    const jobId = job.id!;

    const envelope = jobEnvelope.safeParse(job.data);
    if (!envelope.success) {
      metrics.jobs.inc({ type: job.name, outcome: 'invalid' });
      const message = new InvalidInputError(issuesOf(envelope.error), 'job data').message;
      logger.warn(
        { jobId, type: job.name, err: message },
        'job refused: data is not a longshore job envelope',
      );
      throw new UnrecoverableError(message);
    }
    let valid: { type: JobType; contract: JobContract<unknown>; payload: unknown };
    try {
      valid = validateJob(job.name, envelope.data.payload);
    } catch (err) {
      const message = (err as Error).message;
      metrics.jobs.inc({ type: job.name, outcome: 'invalid' });
      logger.warn({ jobId, type: job.name, err: message }, 'job refused: invalid payload');
      if (envelope.data.lane) this.leaveLane(job, envelope.data.lane, message);
      throw new UnrecoverableError(message);
    }

    const { type, contract, payload } = valid;
    const laneOfPayload = contract.lane(payload);
    const lane = laneOfPayload ? laneId(laneOfPayload) : undefined;
    if (envelope.data.lane && envelope.data.lane !== lane) {
      const message = `job data names lane ${envelope.data.lane} but its payload belongs to ${lane ?? 'no lane'}`;
      metrics.jobs.inc({ type, outcome: 'invalid' });
      this.leaveLane(job, envelope.data.lane, message);
      throw new UnrecoverableError(message);
    }
    const attemptStart: StoredAttempt = {
      worker: this.deps.workerName,
      pid: process.pid,
      startedAt: Date.now(),
    };
    const attemptJson = JSON.stringify(attemptStart);

    let seq: number | undefined;
    let requeued = false;
    let previous: string[];
    let attemptNumber: number;
    if (lane) {
      const turn = await this.deps.lanes.acquire({
        lane,
        jobId,
        ...supersession(type, contract),
        attempt: attemptJson,
        graceMs: this.deps.reservationGraceMs,
      });
      if (turn.kind === 'done') return this.answerDuplicate(type, turn.done);
      if (turn.kind === 'wait') return this.park(job, token, lane, type, turn.head);
      if (turn.kind === 'superseded') return this.supersede(job, type, lane, contract, turn.by);
      seq = turn.seq;
      previous = turn.previousAttempts;
      attemptNumber = turn.attempt;
      requeued = turn.requeued;
      if (turn.requeued) {
        await job.log(
          'this job was not in its lane (retried after failing for good, or added late): it joined the end of the lane',
        );
      }
    } else {
      const start = await this.deps.lanes.startUnordered(jobId, attemptJson);
      if (start.done) return this.answerDuplicate(type, start.done);
      previous = start.previousAttempts;
      attemptNumber = start.attempt;
    }

    metrics.startDelay.observe(
      { type },
      Math.max(0, attemptStart.startedAt - envelope.data.enqueuedAt) / 1000,
    );
    const previousAttempts = parseAttempts(previous);
    const info: JobInfo = {
      id: jobId,
      type,
      ...(lane ? { lane } : {}),
      ...(seq !== undefined ? { seq } : {}),
      attempt: attemptNumber,
      enqueuedBy: envelope.data.enqueuedBy,
      enqueuedAt: envelope.data.enqueuedAt,
    };
    return this.runHandler(job, token, {
      info,
      contract,
      payload,
      app: contract.app(payload),
      enqueuedSeq: envelope.data.seq,
      requeued,
      previousAttempts,
      attemptStart,
    });
  };

  private async runHandler(job: Job, token: string | undefined, turn: Turn): Promise<unknown> {
    const { metrics, logger } = this.deps;
    const { info } = turn;
    const where = { jobId: info.id, type: info.type, app: turn.app, attempt: info.attempt };
    const abortable = new Abortable();
    this.running.set(info.id, abortable);
    metrics.active.inc();
    const started = Date.now();
    logger.info({ ...where, seq: info.seq }, 'job started');
    if (info.attempt > 1) {
      const last = turn.previousAttempts.at(-1);
      await job.log(
        `attempt ${info.attempt}; previous attempt ${last?.outcome ? `ended: ${last.outcome}${last.error ? ` (${last.error})` : ''}` : 'was interrupted (its worker stopped)'}`,
      );
    }

    try {
      const handler = this.deps.registry.get(info.type);
      const result = ((await handler(this.context(job, abortable, turn))) ?? {}) as HandlerResult;
      const seconds = (Date.now() - started) / 1000;
      this.complete(turn, result, await this.changeRecord(turn));
      metrics.jobs.inc({ type: info.type, outcome: 'completed' });
      metrics.duration.observe({ type: info.type, outcome: 'completed' }, seconds);
      logger.info({ ...where, seconds }, 'job completed');
      return result;
    } catch (err) {
      const seconds = (Date.now() - started) / 1000;
      const reason = abortable.reason;
      if (reason?.kind === 'shutdown') {
        this.closeAttempt(turn, 'handed-back', reason.message);
        metrics.jobs.inc({ type: info.type, outcome: 'handed_back' });
        logger.warn({ ...where, seconds }, 'job handed back: worker shutting down');
        await job.moveToWait(token);
        throw new WaitingError();
      }
      if (reason?.kind === 'lock-lost') {
        // Another worker owns the job now (stall recovery); record nothing else and let it run.
        this.closeAttempt(turn, 'lock-lost', reason.message);
        logger.error({ ...where, seconds }, 'job lock lost; stopped so that only the new owner runs it');
        throw err;
      }
      const cancelled = reason?.kind === 'cancel';
      const classified = cancelled ? { transient: false, message: reason.message } : classifyError(err);
      const message = classified.message.slice(0, ERROR_TEXT_MAX);
      const allowed = job.opts.attempts ?? 1;
      const final = !classified.transient || job.attemptsMade + 1 >= allowed;
      const outcome: JobMetricOutcome = cancelled ? 'cancelled' : final ? 'failed' : 'retried';
      metrics.jobs.inc({ type: info.type, outcome });
      metrics.duration.observe({ type: info.type, outcome }, seconds);
      if (!final) {
        this.closeAttempt(turn, 'retrying', message);
        await job.log(
          `attempt ${info.attempt} failed (transient, retry ${job.attemptsMade + 1} of ${allowed - 1}): ${message}`,
        );
        logger.warn({ ...where, err: message }, 'job failed, will retry');
        throw err;
      }
      this.fail(job, turn, message, cancelled ? 'cancelled' : 'failed');
      logger.error({ ...where, err: message, transient: classified.transient }, 'job failed');
      throw new UnrecoverableError(message);
    } finally {
      this.running.delete(info.id);
      metrics.active.dec();
    }
  }

  private context(job: Job, abortable: Abortable, turn: Turn): HandlerContext<unknown> {
    const { redis, logger } = this.deps;
    const stepsKey = keys.jobSteps(turn.info.id);
    let child: Logger | undefined;
    return {
      job: turn.info,
      payload: turn.payload,
      idempotencyKey: turn.info.id,
      previousAttempts: turn.previousAttempts,
      get signal() {
        return abortable.signal;
      },
      // The same rule as the failure path below: no attempt is left after this one.
      finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
      get cancelled() {
        return abortable.reason?.kind === 'cancel';
      },
      report: (release) => {
        turn.release = release;
      },
      get logger() {
        child ??= logger.child({
          jobId: turn.info.id,
          type: turn.info.type,
          ...(turn.app ? { app: turn.app } : {}),
        });
        return child;
      },
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

  /**
   * The `change` position a success records (docs/ordering.md): the job's enqueue position, for an
   * operator change. A job that rejoined its lane (a forced retry) can finish after a newer change
   * succeeded; the record then keeps the newer position, so the retry of an old job never lowers
   * the guard that refuses re-applying work older than what succeeded. Only such jobs pay a read.
   */
  private async changeRecord(turn: Turn): Promise<{ seq: number } | undefined> {
    if (turn.contract.operatorChange === false) return undefined;
    const seq = turn.enqueuedSeq ?? turn.info.seq ?? 0;
    if (!turn.requeued || !turn.info.lane) return { seq };
    const current = await readLaneStatus(this.deps.redis, turn.info.lane).catch(() => undefined);
    return (current?.lastChangeSeq ?? 0) > seq ? undefined : { seq };
  }

  /** Records a success; sent, not awaited (see the file comment). */
  private complete(turn: Turn, result: HandlerResult, change: { seq: number } | undefined): void {
    const now = Date.now();
    const { info } = turn;
    const done = JSON.stringify({ outcome: 'completed', result, finishedAt: now } satisfies DoneMarker);
    const attempt = attemptEnd(turn, 'completed');
    if (!info.lane) {
      this.settle(this.endAttempt(info.id, attempt.number, attempt.record, done), info.id);
      return;
    }
    const image =
      result.image ?? (info.type === 'deploy' ? (turn.payload as { image?: string }).image : undefined);
    const finishing = this.deps.lanes.finish({
      jobId: info.id,
      lane: info.lane,
      ...(turn.contract.supersedeKey ? { supersedeKey: turn.contract.supersedeKey } : {}),
      done,
      attempt,
      status: {
        ...statusOnSuccess(
          info,
          now,
          {
            ...(typeof result.revision === 'number' ? { revision: result.revision } : {}),
            ...(image ? { image } : {}),
          },
          // Only an operator change is newer work a retry must not be re-applied over (not a reconcile).
          change,
        ),
        ...statusOfRelease(turn.release),
      },
    });
    this.settle(finishing, info.id);
  }

  /** Records a failure for good; sent, not awaited (see the file comment). */
  private fail(job: Job, turn: Turn, message: string, outcome: 'failed' | 'cancelled'): void {
    const attempt = attemptEnd(turn, outcome, message);
    if (!turn.info.lane) {
      const done = JSON.stringify({
        outcome: 'failed',
        error: message,
        finishedAt: Date.now(),
      } satisfies DoneMarker);
      this.settle(this.endAttempt(turn.info.id, attempt.number, attempt.record, done), turn.info.id);
      return;
    }
    this.leaveLane(job, turn.info.lane, message, attempt, turn.contract.supersedeKey, turn.release);
  }

  /**
   * A job of `lane` ended for good without completing: record why and free the lane for the jobs
   * behind it. Sent, not awaited: the caller throws next, and BullMQ's failure command follows.
   */
  private leaveLane(
    job: Job,
    lane: string,
    error: string,
    attempt?: { number: number; record: string },
    supersedeKey?: string,
    release?: ReleaseReport,
  ): void {
    const now = Date.now();
    const finishing = this.deps.lanes.finish({
      jobId: job.id!,
      lane,
      ...(supersedeKey ? { supersedeKey } : {}),
      done: JSON.stringify({ outcome: 'failed', error, finishedAt: now } satisfies DoneMarker),
      ...(attempt ? { attempt } : {}),
      status: {
        ...statusOnEnd({ id: job.id!, type: job.name }, now, 'failed', error.slice(0, ERROR_TEXT_MAX)),
        ...statusOfRelease(release),
      },
    });
    this.settle(finishing, job.id!);
  }

  private async supersede(
    job: Job,
    type: JobType,
    lane: string,
    contract: JobContract<unknown>,
    by: string,
  ): Promise<unknown> {
    const now = Date.now();
    await job.log(`superseded by ${by}, a newer ${type} of the same app queued behind it; nothing was done`);
    const finishing = this.deps.lanes.finish({
      jobId: job.id!,
      lane,
      ...(contract.supersedeKey ? { supersedeKey: contract.supersedeKey } : {}),
      done: JSON.stringify({
        outcome: 'superseded',
        result: { supersededBy: by },
        finishedAt: now,
      } satisfies DoneMarker),
      status: statusOnEnd({ id: job.id!, type }, now, 'superseded'),
    });
    this.settle(finishing, job.id!);
    this.deps.metrics.jobs.inc({ type, outcome: 'superseded' });
    this.deps.logger.info({ jobId: job.id, type, supersededBy: by }, 'job superseded');
    return { outcome: 'superseded', supersededBy: by };
  }

  /** Closes the current attempt record; sent ahead of BullMQ's own command for the job, not awaited. */
  private closeAttempt(turn: Turn, outcome: StoredAttempt['outcome'], error?: string): void {
    const attempt = attemptEnd(turn, outcome, error);
    this.settle(this.endAttempt(turn.info.id, attempt.number, attempt.record), turn.info.id);
  }

  /**
   * Follows up a record that was sent without waiting: promotes the lane's next job when it is
   * parked, and logs a failure (the lane then heals itself: a head whose job BullMQ finished is
   * dropped by the next acquire).
   */
  private settle(sent: Promise<{ next?: string; nextDelayed: boolean } | undefined>, jobId: string): void {
    sent
      .then(
        (finished) => (finished ? this.promote(finished.next, finished.nextDelayed) : undefined),
        (err: Error) =>
          this.deps.logger.error({ jobId, err: err.message }, 'recording the end of a job failed'),
      )
      .catch((err: Error) =>
        this.deps.logger.warn({ jobId, err: err.message }, 'promoting the next job of its lane failed'),
      );
  }

  /** endAttempt, typed for `settle` (it has no next job to promote). */
  private async endAttempt(
    jobId: string,
    attempt: number,
    record: string,
    done?: string,
  ): Promise<undefined> {
    await this.deps.lanes.endAttempt(jobId, attempt, record, done);
    return undefined;
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
