/**
 * The producer side of the queue: validate, reserve a place in the job's lane, add the job.
 * Used by the CLI, the git hook, the HTTP API and by workers that enqueue follow-up jobs (sync).
 */
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { InfrastructureError } from '../core/errors.ts';
import type { JobType } from './contract.ts';
import { CrossShardLanes, crossesShards } from './cross-shard-lanes.ts';
import { ENVELOPE_VERSION, type JobEnvelope } from './envelope.ts';
import { QUEUE_NAME } from './keys.ts';
import { laneId } from './lane.ts';
import { LaneStore } from './ordering/lane-store.ts';
import { ensureShardLayout } from './shard-guard.ts';
import { allShards, shardOfJobId, shardPrefix } from './shards.ts';
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

/** The BullMQ queue of shard `shard` (default 0, the only one with one shard): prefix its hash tag. */
export function createQueue(connection: Redis, shard = 0): Queue {
  return new Queue(QUEUE_NAME, { connection, prefix: shardPrefix(shard) });
}

export class JobClient {
  /** One BullMQ queue per shard (src/jobs/shards.ts), by shard index. */
  readonly queues: readonly Queue[];
  private readonly lanes: LaneStore;
  private readonly crossShard: CrossShardLanes;
  /** The shard layout check (shard-guard.ts), once per client, before its first write. */
  private layoutChecked?: Promise<void>;

  constructor(
    readonly connection: Redis,
    private readonly defaults: JobDefaults,
  ) {
    this.queues = allShards().map((shard) => createQueue(connection, shard));
    this.lanes = new LaneStore(connection);
    this.crossShard = new CrossShardLanes(connection);
  }

  /** Shard 0's queue: with one shard (the default) the fleet's only queue. */
  get queue(): Queue {
    return this.queues[0]!;
  }

  /** Listens to every shard's queue's `error` events (an EventEmitter throws one nobody hears). */
  onQueueError(listener: (err: Error) => void): void {
    for (const queue of this.queues) queue.on('error', listener);
  }

  /** Refuses (ShardLayoutError) when the fleet's data was written with another K. */
  checkShardLayout(): Promise<void> {
    this.layoutChecked ??= ensureShardLayout(this.connection).catch((err: unknown) => {
      this.layoutChecked = undefined;
      throw err;
    });
    return this.layoutChecked;
  }

  /** The queue that holds job `jobId` (its lane's shard). */
  queueFor(jobId: string): Queue {
    return this.queues[shardOfJobId(jobId)]!;
  }

  /**
   * Validates `payload` for `type` (InvalidInputError naming the field, before anything is written),
   * then enqueues it in its lane's order.
   */
  async enqueue(type: string, payload: unknown, enqueuedBy: string): Promise<EnqueuedJob> {
    const job = await validateJobLazily(type, payload);
    await this.checkShardLayout();
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
    // (docs/ordering.md, "Barriers"). Lanes in two shards: under the two-lane lock instead
    // (cross-shard-lanes.ts, docs/redis-cluster.md).
    const reserved =
      barrier && crossesShards(id, barrier)
        ? await this.crossShard.reserve(id, supersedeKey, barrier)
        : await this.lanes.reserve(id, supersedeKey, barrier);
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
      await this.queueFor(opts?.jobId ?? '').add(type, data, opts);
    } catch (err) {
      throw new InfrastructureError(`could not enqueue the ${type} job: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map((queue) => queue.close()));
  }
}
