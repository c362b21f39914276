/**
 * The BullMQ processor of the fleet: validates a job, asks its lane for a decision, runs its
 * handler and records the outcome. The ordering protocol is described in docs/ordering.md; in
 * short:
 *
 *   picked ─► valid? ──no──► fail at once (UnrecoverableError), leave the lane
 *               │yes
 *               ▼
 *           holds a barrier lane and is not its head? ──yes──► park, as below, in that lane
 *               │no
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
 * The runner knows nothing of job types: what a job means is its contract's (lane, app,
 * supersession, operator change) and its handler's (the result's `revision` and `image`).
 * Pieces, one per file in runner/: the job it runs (running-job.ts), the records its end writes
 * (job-records.ts, done-marker.ts, change-record.ts), parking (parking.ts), aborts (abort.ts) and
 * the handler context (handler-context.ts).
 *
 * This path runs for every job, so it keeps round trips and allocations down:
 *  - one script call to start; the records of the end are not awaited (runner/job-records.ts);
 *  - no child loggers (bindings are passed per line, and disabled levels cost nothing);
 *  - the processor takes no AbortSignal from BullMQ, which would allocate one per job: cancels
 *    and shutdown reach handlers through the runner's own controller.
 */
import { type Job, type Queue, UnrecoverableError, WaitingError } from 'bullmq';
import type { Redis } from 'ioredis';
import { InvalidInputError, PermanentError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { type AttemptRecord, parseAttempts } from '../jobs/attempts.ts';
import type { JobContract, JobType } from '../jobs/contract.ts';
import { supersessionOf } from '../jobs/contracts.ts';
import { type CrossShardLanes, crossesShards } from '../jobs/cross-shard-lanes.ts';
import { jobEnvelope } from '../jobs/envelope-schema.ts';
import { laneId } from '../jobs/lane.ts';
import type { LaneStore } from '../jobs/ordering/lane-store.ts';
import { clearRenamed, renamedDecision } from '../jobs/renamed.ts';
import { encodeLogEvent } from '../jobs/stream-event-codec.ts';
import { issuesOf, validateJob } from '../jobs/validate.ts';
import { type CacheFences, type Fence, mergeFences } from '../kube/cache-fence.ts';
import { classifyError } from './failure.ts';
import type { HandlerResult, JobInfo, WorkerServices } from './handler.ts';
import type { HandlerRegistry } from './handler-registry.ts';
import type { JobMetricOutcome, WorkerMetrics } from './metrics.ts';
import { Abortable, type AbortKind, JobAbort } from './runner/abort.ts';
import { changeRecord } from './runner/change-record.ts';
import { answerFromDoneMarker } from './runner/done-marker.ts';
import { handlerContext } from './runner/handler-context.ts';
import { ERROR_TEXT_MAX, JobRecords } from './runner/job-records.ts';
import { park } from './runner/parking.ts';
import { attemptStartLine, type RunningJob } from './runner/running-job.ts';

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

export interface JobRunnerDeps {
  lanes: LaneStore;
  registry: HandlerRegistry;
  services: WorkerServices;
  /** The queue of a job id's shard (JobClient.queueFor). */
  queueFor: (jobId: string) => Queue;
  /** Holds of jobs whose two lanes are in different queue shards (src/jobs/cross-shard-lanes.ts). */
  crossShard: CrossShardLanes;
  redis: Redis;
  logger: Logger;
  metrics: WorkerMetrics;
  workerName: string;
  reservationGraceMs: number;
  /**
   * The cluster connection's cache fences (src/kube/cache-fence.ts): a job's first use of the
   * cluster waits until this process's caches hold what the lane's previous job wrote elsewhere.
   */
  fences?: CacheFences;
  /** Called after every handler's end, whatever its outcome (the idle collector: idle-gc.ts). */
  onJobEnded?: () => void;
}

export class JobRunner {
  private readonly running = new Map<string, Abortable>();
  private readonly records: JobRecords;

  constructor(private readonly deps: JobRunnerDeps) {
    this.records = new JobRecords(deps);
  }

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
      if (envelope.data.lane) this.records.leftLane(job, envelope.data.lane, message);
      throw new UnrecoverableError(message);
    }

    const { type, contract, payload } = valid;
    const laneOfPayload = contract.lane(payload);
    const lane = laneOfPayload ? laneId(laneOfPayload) : undefined;
    if (envelope.data.lane && envelope.data.lane !== lane) {
      const message = `job data names lane ${envelope.data.lane} but its payload belongs to ${lane ?? 'no lane'}`;
      metrics.jobs.inc({ type, outcome: 'invalid' });
      this.records.leftLane(job, envelope.data.lane, message);
      throw new UnrecoverableError(message);
    }
    const attemptRecord: AttemptRecord = {
      worker: this.deps.workerName,
      pid: process.pid,
      startedAt: Date.now(),
    };
    const attemptJson = JSON.stringify(attemptRecord);

    let seq: number | undefined;
    let requeued = false;
    let renamedMarkerJson: string | undefined;
    let laneFence: string | undefined;
    let previousAttemptsJson: string[];
    let attemptNumber: number;
    if (lane) {
      const barrier = contract.barrierLane?.(payload);
      if (barrier) {
        // A job holding a second lane (docs/ordering.md, "Barriers") starts only once it heads that
        // one too: the jobs enqueued there before it run first. It is promoted when the one ahead
        // of it there finishes (that lane's own finish returns it as the next head).
        const other = laneId(barrier);
        const turn = await this.deps.lanes.turn(other, jobId, this.deps.reservationGraceMs);
        if (turn === 'behind') {
          await this.releaseForeignHead(other);
          return park(this.deps, job, token, other, type, '');
        }
      }
      const decision = await this.deps.lanes.acquire({
        lane,
        jobId,
        ...supersession(type, contract),
        attemptJson,
        graceMs: this.deps.reservationGraceMs,
      });
      if (decision.kind === 'done') {
        // Its hold in another shard's lane may have outlived a crash after the finish.
        if (barrier && crossesShards(lane, laneId(barrier)))
          await this.deps.crossShard.release(laneId(barrier), jobId);
        return this.answerDuplicate(type, decision.done);
      }
      if (decision.kind === 'wait') {
        await this.releaseForeignHead(lane);
        return park(this.deps, job, token, lane, type, decision.head);
      }
      if (decision.kind === 'superseded') return this.supersede(job, type, lane, contract, decision.by);
      seq = decision.seq;
      previousAttemptsJson = decision.previousAttemptsJson;
      attemptNumber = decision.attemptNumber;
      requeued = decision.requeued;
      renamedMarkerJson = decision.renamedTo ?? '';
      laneFence = decision.cacheFence;
      if (decision.requeued) {
        await job.log(
          'this job was not in its lane (retried after failing for good, or added late): it joined the end of the lane',
        );
      }
    } else {
      const start = await this.deps.lanes.startUnordered(jobId, attemptJson);
      if (start.kind === 'done') return this.answerDuplicate(type, start.done);
      previousAttemptsJson = start.previousAttemptsJson;
      attemptNumber = start.attemptNumber;
    }

    metrics.startDelay.observe(
      { type },
      Math.max(0, attemptRecord.startedAt - envelope.data.enqueuedAt) / 1000,
    );
    const info: JobInfo = {
      id: jobId,
      type,
      ...(lane ? { lane } : {}),
      ...(seq !== undefined ? { seq } : {}),
      attemptNumber,
      enqueuedBy: envelope.data.enqueuedBy,
      enqueuedAt: envelope.data.enqueuedAt,
    };
    const previousAttempts = parseAttempts(previousAttemptsJson);
    // What the lane's last job and this job's earlier attempts wrote; merged only when there is one.
    let fence: Fence | undefined;
    if (laneFence || previousAttempts.some((a) => a.cacheFence))
      fence = mergeFences([laneFence, ...previousAttempts.map((a) => a.cacheFence)]);
    return this.runHandler(job, token, {
      info,
      contract,
      payload,
      app: contract.app(payload),
      enqueuedSeq: envelope.data.seq,
      requeued,
      ...(renamedMarkerJson !== undefined ? { renamedMarkerJson } : {}),
      previousAttempt: previousAttempts.at(-1),
      attemptRecord,
      ...(fence ? { fence } : {}),
    });
  };

  private async runHandler(job: Job, token: string | undefined, running: RunningJob): Promise<unknown> {
    const { metrics, logger } = this.deps;
    const { info } = running;
    const where = { jobId: info.id, type: info.type, app: running.app, attempt: info.attemptNumber };
    const abortable = new Abortable();
    this.running.set(info.id, abortable);
    metrics.active.inc();
    const started = Date.now();
    logger.info({ ...where, seq: info.seq }, 'job started');
    if (info.attemptNumber > 1) await job.log(attemptStartLine(info.attemptNumber, running.previousAttempt));

    try {
      const handler = this.deps.registry.get(info.type);
      await refuseRenamedApp(this.deps.redis, job, running);
      const ctx = handlerContext(job, running, abortable, this.deps);
      const result = ((await handler(ctx)) ?? {}) as HandlerResult;
      // The fence this job leaves must name its deletions, known only once their events arrive.
      await this.deps.fences?.settleDeletions();
      const seconds = (Date.now() - started) / 1000;
      this.records.completed(running, result, await changeRecord(this.deps.redis, running));
      metrics.jobs.inc({ type: info.type, outcome: 'completed' });
      metrics.duration.observe({ type: info.type, outcome: 'completed' }, seconds);
      logger.info({ ...where, seconds }, 'job completed');
      return result;
    } catch (err) {
      const seconds = (Date.now() - started) / 1000;
      const reason = abortable.reason;
      if (reason?.kind === 'shutdown') {
        this.records.attemptEnded(running, 'handed-back', reason.message);
        metrics.jobs.inc({ type: info.type, outcome: 'handed_back' });
        logger.warn({ ...where, seconds }, 'job handed back: worker shutting down');
        await job.moveToWait(token);
        throw new WaitingError();
      }
      if (reason?.kind === 'lock-lost') {
        // Another worker owns the job now (stall recovery); record nothing else and let it run.
        this.records.attemptEnded(running, 'lock-lost', reason.message);
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
        this.records.attemptEnded(running, 'retrying', message);
        await job.log(
          encodeLogEvent({
            kind: 'warning',
            text: `attempt ${info.attemptNumber} failed (transient, retry ${job.attemptsMade + 1} of ${allowed - 1}): ${message}`,
          }),
        );
        logger.warn({ ...where, err: message }, 'job failed, will retry');
        throw err;
      }
      this.records.failed(job, running, message, cancelled ? 'cancelled' : 'failed');
      logger.error({ ...where, err: message, transient: classified.transient }, 'job failed');
      throw new UnrecoverableError(message);
    } finally {
      this.running.delete(info.id);
      metrics.active.dec();
      this.deps.onJobEnded?.();
    }
  }

  private async supersede(
    job: Job,
    type: JobType,
    lane: string,
    contract: JobContract<unknown>,
    by: string,
  ): Promise<unknown> {
    await job.log(`superseded by ${by}, a newer ${type} of the same app queued behind it; nothing was done`);
    this.records.superseded(job, type, lane, contract, by);
    this.deps.metrics.jobs.inc({ type, outcome: 'superseded' });
    this.deps.logger.info({ jobId: job.id, type, supersededBy: by }, 'job superseded');
    return { outcome: 'superseded', supersededBy: by };
  }

  /**
   * Before parking behind `lane`'s head: a hold of a job of another shard that ended without
   * removing it, or never came, is dropped (src/jobs/cross-shard-lanes.ts); parking then finds the
   * job at the head and promotes it. Best effort: the next look at the lane tries again.
   */
  private async releaseForeignHead(lane: string): Promise<void> {
    await this.deps.crossShard
      .releaseForeignHead(lane, this.deps.reservationGraceMs, (id) => this.deps.queueFor(id).getJobState(id))
      .catch((err: Error) =>
        this.deps.logger.warn({ lane, err: err.message }, 'checking a hold of another shard failed'),
      );
  }

  /**
   * A job BullMQ failed without running it, because it stalled more than maxStalledCount times
   * (its workers kept dying while running it): the processor never saw this pickup, so the lane's
   * end is recorded here, with a reason a person can act on instead of BullMQ's "job stalled more
   * than allowable limit". The job may have applied part of its change before it stopped.
   */
  stalledOut(job: Job, maxStalledCount: number): void {
    const lane = (job.data as { lane?: unknown } | undefined)?.lane;
    const message =
      `its worker stopped while running it (killed, crashed or lost its lock) ${job.stalledCounter} times, ` +
      `more than LONGSHORE_MAX_STALLED_COUNT=${maxStalledCount} allows, so it was not started again; ` +
      `what it applied before stopping stays, and the app's next job builds on it; ` +
      `\`longshore jobs:retry ${job.id}\` runs it again`;
    this.deps.metrics.jobs.inc({ type: job.name, outcome: 'failed' });
    this.deps.logger.error({ jobId: job.id, type: job.name, err: message }, 'job failed: stalled too often');
    if (typeof lane === 'string' && lane) this.records.leftLane(job, lane, message);
  }

  /** A job already finished was delivered again (crash between our record and BullMQ's): answer from the record. */
  private answerDuplicate(type: string, done: string): unknown {
    this.deps.metrics.jobs.inc({ type, outcome: 'duplicate' });
    return answerFromDoneMarker(done);
  }
}

/**
 * A job of an app lane whose app was renamed (src/jobs/renamed.ts) fails for good, naming the new
 * name — except the rename that left the marker, whose retry finishes its own work, and a deploy
 * enqueued after the rename moved the projection (its lane position, the seq its producer
 * reserved, is past the marker's), which takes the old name back: the marker goes before the
 * deploy's first write, and the deploy creates the app anew.
 */
async function refuseRenamedApp(redis: Redis, job: Job, running: RunningJob): Promise<void> {
  const app = running.app;
  if (!app || running.info.lane !== laneId({ kind: 'app', name: app })) return;
  const decision = await renamedDecision(
    redis,
    app,
    {
      id: running.info.id,
      type: running.info.type,
      // The position its producer reserved: a retry requeued at the tail keeps its place before the move.
      seq: running.enqueuedSeq ?? running.info.seq ?? 0,
    },
    running.renamedMarkerJson,
  );
  if (!decision || decision.verdict === 'run') return;
  const { marker, verdict } = decision;
  if (decision.pinned)
    await job.log(
      `the rename marker of ${app} had no lane position (written by an older longshore, or by a rename that ` +
        `never ended): it now holds position ${marker.seq}; a deploy of ${app} enqueued from now on creates ${app} anew`,
    );
  if (verdict === 'refuse') throw new PermanentError(`app ${app} was renamed to ${marker.name}`);
  await clearRenamed(redis, app);
  await job.log(
    `app ${app} was renamed to ${marker.name} before this deploy was enqueued: ${app} is created anew`,
  );
}
