/**
 * The records a job's end writes: its done marker, the end of its attempt, the lane's status
 * projection, leaving the lane (docs/ordering.md, "finish"). Every call here is sent, not
 * awaited: the processor's return or throw follows at once, so the record reaches Redis on the
 * same connection just ahead of BullMQ's own completion (or failure) command and runs first, in
 * the same round trip; a crash cannot record BullMQ's outcome without ours. `settle` follows each
 * call up: it promotes the lane's next job and logs a failure.
 */
import { Job, type Queue } from 'bullmq';
import type { Logger } from '../../core/logger.ts';
import type { AttemptOutcome } from '../../jobs/attempts.ts';
import type { JobContract, JobType } from '../../jobs/contract.ts';
import { type CrossShardLanes, crossesShards } from '../../jobs/cross-shard-lanes.ts';
import { laneId } from '../../jobs/lane.ts';
import type { EndedAttempt, LaneStore } from '../../jobs/ordering/lane-store.ts';
import { type ReleaseReport, statusOfRelease, statusOnEnd, statusOnSuccess } from '../../jobs/status.ts';
import { type CacheFences, encodeFence } from '../../kube/cache-fence.ts';
import type { HandlerResult } from '../handler.ts';
import { doneJson } from './done-marker.ts';
import { endOfAttempt, type RunningJob } from './running-job.ts';

/** Longest error text kept in a record (the job's own failedReason keeps BullMQ's). */
export const ERROR_TEXT_MAX = 2_000;

interface Finished {
  next?: string;
  nextDelayed: boolean;
}

export class JobRecords {
  constructor(
    private readonly deps: {
      lanes: LaneStore;
      queueFor: (jobId: string) => Queue;
      crossShard: CrossShardLanes;
      logger: Logger;
      reservationGraceMs: number;
      /** The cluster connection's cache fences; absent in a runner without a cluster. */
      fences?: CacheFences;
    },
  ) {}

  /**
   * The cache fence a job's attempt leaves: what it wrote into this process's caches since it
   * started, with the fence it started from (src/kube/cache-fence.ts). Undefined when empty.
   */
  private leavingFence(running: RunningJob): string | undefined {
    const { fences } = this.deps;
    if (fences) return encodeFence(fences.fenceSince(running.attemptRecord.startedAt, running.fence));
    return running.fence ? encodeFence(running.fence) : undefined;
  }

  /** A success, with the `change` position of changeRecord (undefined: none is recorded). */
  completed(running: RunningJob, result: HandlerResult, change: { seq: number } | undefined): void {
    const now = Date.now();
    const { info } = running;
    const done = doneJson.completed(result, now);
    const cacheFence = this.leavingFence(running);
    const ended = endOfAttempt(running, 'completed', undefined, cacheFence);
    if (!info.lane) {
      this.settle(this.endAttempt(info.id, ended, done), info.id);
      return;
    }
    const finishing = this.deps.lanes.finish({
      jobId: info.id,
      lane: info.lane,
      ...(running.contract.supersedeKey ? { supersedeKey: running.contract.supersedeKey } : {}),
      done,
      endedAttempt: ended,
      status: {
        ...statusOnSuccess(
          info,
          now,
          {
            ...(typeof result.revision === 'number' ? { revision: result.revision } : {}),
            ...(result.image ? { image: result.image } : {}),
          },
          // Only an operator change is newer work a retry must not be re-applied over (not a reconcile).
          change,
        ),
        ...statusOfRelease(running.release),
        ...(cacheFence ? { cacheFence } : {}),
      },
    });
    this.settle(finishing, info.id);
    this.releaseBarrier(finishing, running);
  }

  /** A failure for good (permanent, attempts used up, or cancelled). */
  failed(job: Job, running: RunningJob, message: string, outcome: 'failed' | 'cancelled'): void {
    // A failed job may have written part of its work: the next job waits for that too.
    const cacheFence = this.leavingFence(running);
    const ended = endOfAttempt(running, outcome, message, cacheFence);
    if (!running.info.lane) {
      this.settle(
        this.endAttempt(running.info.id, ended, doneJson.failed(message, Date.now())),
        running.info.id,
      );
      return;
    }
    const left = this.leftLane(
      job,
      running.info.lane,
      message,
      ended,
      running.contract.supersedeKey,
      running.release,
      cacheFence,
    );
    // After the failure is recorded, so the lane behind the barrier sees its head finished.
    this.releaseBarrier(left, running);
  }

  /**
   * A job of `lane` ended for good without completing: record why and free the lane for the jobs
   * behind it. Also for jobs refused before they ran (no attempt to end). Resolves once recorded.
   */
  leftLane(
    job: Job,
    lane: string,
    error: string,
    ended?: EndedAttempt,
    supersedeKey?: string,
    release?: ReleaseReport,
    cacheFence?: string,
  ): Promise<unknown> {
    const now = Date.now();
    const finishing = this.deps.lanes.finish({
      jobId: job.id!,
      lane,
      ...(supersedeKey ? { supersedeKey } : {}),
      done: doneJson.failed(error, now),
      ...(ended ? { endedAttempt: ended } : {}),
      status: {
        ...statusOnEnd({ id: job.id!, type: job.name }, now, 'failed', error.slice(0, ERROR_TEXT_MAX)),
        ...statusOfRelease(release),
        ...(cacheFence ? { cacheFence } : {}),
      },
    });
    this.settle(finishing, job.id!);
    return finishing;
  }

  /** A job skipped for a newer one of its supersede key (`by`); it never ran, so no attempt ends. */
  superseded(job: Job, type: JobType, lane: string, contract: JobContract<unknown>, by: string): void {
    const now = Date.now();
    const finishing = this.deps.lanes.finish({
      jobId: job.id!,
      lane,
      ...(contract.supersedeKey ? { supersedeKey: contract.supersedeKey } : {}),
      done: doneJson.superseded(by, now),
      status: statusOnEnd({ id: job.id!, type }, now, 'superseded'),
    });
    this.settle(finishing, job.id!);
  }

  /** Closes the current attempt only: the job goes on (a retry, a hand-back, another owner). */
  attemptEnded(running: RunningJob, outcome: AttemptOutcome, error?: string): void {
    // The next attempt, on whichever worker, waits for what this one wrote (runner, "go").
    const ended = endOfAttempt(running, outcome, error, this.leavingFence(running));
    this.settle(this.endAttempt(running.info.id, ended), running.info.id);
  }

  /**
   * Follows up a record that was sent without waiting: promotes the lane's next job when it is
   * parked, and logs a failure (the lane then heals itself: a head whose job BullMQ finished is
   * dropped by the next acquire).
   */
  private settle(sent: Promise<Finished | undefined>, jobId: string): void {
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

  /**
   * A job that held another lane through a barrier (a rename, a mount; docs/ordering.md "Barriers"): once its
   * end is recorded, the job behind the barrier is promoted if it is parked and now the head (the
   * lane's own finish only promotes in the job's lane). Best effort: a parked job also wakes up on
   * its own after its park delay.
   */
  private releaseBarrier(recorded: Promise<unknown>, running: RunningJob): void {
    const barrier = running.contract.barrierLane?.(running.payload);
    if (!barrier) return;
    const lane = laneId(barrier);
    const { lanes, reservationGraceMs, logger, crossShard } = this.deps;
    const own = running.info.lane;
    recorded
      .catch(() => undefined)
      .then(async () => {
        // A hold in another shard's lane is removed here: that lane cannot see the job's end.
        if (own && crossesShards(own, lane)) await crossShard.release(lane, running.info.id);
        const next = (await lanes.pending(lane)).find((id) => id !== running.info.id);
        if (next && (await lanes.isHead(lane, next, reservationGraceMs))) await this.promote(next, true);
      })
      .catch((err: Error) =>
        logger.warn(
          { jobId: running.info.id, lane, err: err.message },
          'promoting the job behind a barrier failed',
        ),
      );
  }

  /** endAttempt, typed for `settle` (it has no next job to promote). */
  private async endAttempt(jobId: string, ended: EndedAttempt, done?: string): Promise<undefined> {
    await this.deps.lanes.endAttempt(jobId, ended, done);
    return undefined;
  }

  private async promote(next: string | undefined, delayed: boolean): Promise<void> {
    if (!next || !delayed) return;
    const job = await Job.fromId(this.deps.queueFor(next), next);
    // It may have been promoted by its own worker already: that is the same outcome.
    await job?.promote().catch(() => undefined);
  }
}
