/**
 * Coalesces the `acquire` calls a worker process makes in the same tick into one `acquire-many`
 * script call (docs/ordering.md, "Coalesced acquire"). BullMQ hands a worker with concurrency C
 * up to C jobs at once; each would otherwise cost its own round trip and script run before its
 * handler starts, which made the ordering layer the largest cost of a no-op job.
 *
 * Calls are collected until the microtasks of this turn have run (process.nextTick scheduled from
 * a promise continuation runs once the microtask queue is empty, https://nodejs.org/api/process.html#when-to-use-queuemicrotask-vs-processnexttick):
 * BullMQ hands a worker the jobs of one Redis reply through promise continuations, so they all
 * reach `acquire` before the flush. Then they are sent in call order. (Waiting for the check
 * phase, setImmediate, as before, made batches no larger on a busy worker and kept every job
 * waiting behind the other I/O callbacks of the turn: no-op throughput measured about half;
 * docs/benchmarks.md, "Coalesced acquire".) The script checks
 * them one after the other, atomically, exactly as that many acquire calls in a row, so per-lane
 * FIFO and exclusion do not change. Each call gets its own answer: one job whose check raised an
 * error rejects alone; a failed call (connection lost) rejects every call in it, as each lone
 * call would have failed.
 *
 * One batcher serves one queue (one LaneStore, one key prefix): every key a batch touches carries
 * the queue's hash tag, so a sharded deployment (one queue per Redis Cluster slot) batches per
 * shard and each script still touches one slot.
 */

/** One job's turn check, as the `acquire` script takes it. */
export interface AcquireRequest {
  lane: string;
  jobId: string;
  graceMs: number;
  supersedeKey: string;
  /** '' without a supersede key. */
  supersedeRule: string;
  passable: readonly string[];
  attemptJson: string;
}

/** Most jobs in one script call, so one call stays short for Redis (others wait behind a script). */
export const ACQUIRE_BATCH_MAX = 64;

/** A job's check raised an error inside the coalesced script; the other jobs' answers stand. */
export class AcquireError extends Error {
  override readonly name = 'AcquireError';
  constructor(
    readonly jobId: string,
    readonly reason: string,
  ) {
    super(`the ordering check of job ${jobId} failed in Redis: ${reason}`);
  }
}

interface Pending {
  request: AcquireRequest;
  resolve: (reply: unknown[]) => void;
  reject: (error: unknown) => void;
}

export class AcquireBatcher {
  private queued: Pending[] = [];
  private scheduled = false;

  /**
   * @param sendOne   runs `acquire` for one job (a tick with a single call uses it: no batch
   *                  encoding for the common idle case)
   * @param sendMany  runs `acquire-many`, one reply per request, in order
   */
  constructor(
    private readonly sendOne: (request: AcquireRequest) => Promise<unknown[]>,
    private readonly sendMany: (requests: readonly AcquireRequest[]) => Promise<unknown[][]>,
  ) {}

  /** The raw `acquire` reply for `request`, sent with the other calls of this tick. */
  acquire(request: AcquireRequest): Promise<unknown[]> {
    return new Promise((resolve, reject) => {
      this.queued.push({ request, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        process.nextTick(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const all = this.queued;
    this.queued = [];
    for (let i = 0; i < all.length; i += ACQUIRE_BATCH_MAX)
      void this.send(all.slice(i, i + ACQUIRE_BATCH_MAX));
  }

  private async send(batch: Pending[]): Promise<void> {
    if (batch.length === 1) {
      const only = batch[0]!;
      this.sendOne(only.request).then(only.resolve, only.reject);
      return;
    }
    let replies: unknown[][];
    try {
      replies = await this.sendMany(batch.map((p) => p.request));
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, i) => {
      const reply = replies[i];
      if (!Array.isArray(reply)) {
        p.reject(new Error(`unexpected reply from the ordering script: ${JSON.stringify(replies)}`));
      } else if (reply[0] === 'error') {
        p.reject(new AcquireError(p.request.jobId, String(reply[1])));
      } else {
        p.resolve(reply);
      }
    });
  }
}
