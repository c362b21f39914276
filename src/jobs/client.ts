/**
 * The producer side of the queue: validate, reserve a place in the job's lane, add the job.
 * Used by the CLI, the git hook, the HTTP API and by workers that enqueue follow-up jobs (sync).
 */
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { InfrastructureError } from '../core/errors.ts';
import type { JobType } from './contract.ts';
import { ENVELOPE_VERSION, type JobEnvelope } from './envelope.ts';
import { KEY_PREFIX, QUEUE_NAME } from './keys.ts';
import { laneId } from './lane.ts';
import { LaneStore } from './ordering/lane-store.ts';
import { validateJobLazily } from './validate-lazily.ts';

/** Name of the custom backoff strategy workers implement (jittered exponential, Retry-After aware). */
export const BACKOFF_STRATEGY = 'longshore';

export interface JobDefaults {
  /** Attempts per job, first run included (transient failures only; invalid input never retries). */
  attempts: number;
  /** Base delay of the exponential backoff between attempts. */
  backoffMs: number;
}

export interface EnqueuedJob {
  id: string;
  type: JobType;
  lane?: string;
  seq?: number;
}

/** Completed jobs are kept a week and failed ones a month, so operators can inspect and retry them. */
export const RETENTION = {
  removeOnComplete: { age: 7 * 24 * 3600, count: 10_000 },
  removeOnFail: { age: 30 * 24 * 3600, count: 10_000 },
  keepLogs: 1_000,
};

export function createQueue(connection: Redis): Queue {
  return new Queue(QUEUE_NAME, { connection, prefix: KEY_PREFIX });
}

export class JobClient {
  readonly queue: Queue;
  private readonly lanes: LaneStore;

  constructor(
    readonly connection: Redis,
    private readonly defaults: JobDefaults,
  ) {
    this.queue = createQueue(connection);
    this.lanes = new LaneStore(connection);
  }

  /**
   * Validates `payload` for `type` (InvalidInputError naming the field, before anything is written),
   * then enqueues it in its lane's order.
   */
  async enqueue(type: string, payload: unknown, enqueuedBy: string): Promise<EnqueuedJob> {
    const job = await validateJobLazily(type, payload);
    const lane = job.contract.lane(job.payload);
    const envelope: JobEnvelope = {
      v: ENVELOPE_VERSION,
      payload: job.payload,
      enqueuedAt: Date.now(),
      enqueuedBy,
    };
    const options = {
      attempts: this.defaults.attempts,
      backoff: { type: BACKOFF_STRATEGY, delay: this.defaults.backoffMs },
      ...RETENTION,
    };

    if (!lane) {
      const id = `${job.type}.${job.contract.app(job.payload) ?? 'fleet'}.x${randomBytes(6).toString('hex')}`;
      await this.add(job.type, envelope, { ...options, jobId: id });
      return { id, type: job.type };
    }

    const id = laneId(lane);
    const supersedeKey = job.contract.supersedeKey ?? '';
    const barrierLane = job.contract.barrierLane?.(job.payload);
    const barrier = barrierLane ? laneId(barrierLane) : undefined;
    // Both positions in one script: every lane then orders jobs by the moment they were reserved,
    // so a job only ever waits for earlier ones and two jobs never wait for each other
    // (docs/ordering.md, "Barriers").
    const reserved = await this.lanes.reserve(id, supersedeKey, barrier);
    try {
      await this.add(
        job.type,
        { ...envelope, lane: id, seq: reserved.seq },
        { ...options, jobId: reserved.jobId },
      );
    } catch (err) {
      // Give the slot back so the lane does not wait out the reservation grace for nothing.
      await this.lanes.unreserve(id, reserved.jobId, supersedeKey).catch(() => undefined);
      if (barrier) await this.lanes.unreserve(barrier, reserved.jobId).catch(() => undefined);
      throw err;
    }
    return { id: reserved.jobId, type: job.type, lane: id, seq: reserved.seq };
  }

  private async add(type: string, data: JobEnvelope, opts: Parameters<Queue['add']>[2]): Promise<void> {
    try {
      await this.queue.add(type, data, opts);
    } catch (err) {
      throw new InfrastructureError(`could not enqueue the ${type} job: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
