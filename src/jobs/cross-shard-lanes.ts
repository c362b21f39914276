/**
 * Jobs of two lanes in different queue shards (docs/redis-cluster.md, "Jobs of two lanes"): a
 * rename whose new name, or a mount whose storage entry, hashes to another shard than the job's
 * own lane. One script cannot reserve both positions (it would touch two Cluster slots), so:
 *
 * 1. the producer takes the two-lane lock (one key in shard 0, with a TTL), reserves the job's
 *    position in its own lane (`reserve`, shard a), holds the next position of the other lane for
 *    the same id (`hold`, shard b, pinned: the job's hash is in shard a, where that lane's clean-up
 *    cannot see it), and releases the lock only if it still owns it (else undoes both and retries);
 * 2. the worker starts the job once it heads both lanes, as for any barrier, and when the job has
 *    ended for good removes the hold (`unreserve` in shard b) and promotes the job behind it;
 * 3. a worker parked behind a hold whose job ended without removing it (its worker died between
 *    the two) or never came (its producer died) drops the hold (`releaseForeignHead`).
 *
 * Why the lock keeps FIFO without deadlock: every two-lane reservation of the fleet happens either
 * in one script (same shard: an instant) or inside the lock (across shards: an interval no other
 * cross-shard reservation overlaps), so docs/redis-cluster.md's argument applies — a job only ever
 * waits for jobs reserved before it in the order those instants and intervals define.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { InfrastructureError } from '../core/errors.ts';
import { KEY_PREFIX, keys } from './keys.ts';
import { laneOfJobId } from './lane.ts';
import { LaneStore } from './ordering/lane-store.ts';
import { loadLuaScript } from './ordering/lua-loader.ts';
import { LUA_DIR } from './ordering/scripts.ts';
import { prefixOfLane, shardOfJobId, shardOfLane } from './shards.ts';

/** The lock every cross-shard two-lane reservation takes (shard 0). */
export const TWO_LANE_LOCK = `${KEY_PREFIX}:two-lane-lock`;
/** Far longer than the two calls it covers; a producer that dies holding it blocks others this long. */
const LOCK_TTL_MS = 5_000;
/** How long a producer tries to take the lock before it reports the enqueue as failed. */
const LOCK_WAIT_MS = 15_000;
/** A hold's reservation time: far in the future, so the other shard's clean-up never drops it. */
const PIN_MS = 10 * 365 * 24 * 3600 * 1000;

const RELEASE_IF_OWNED = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

let holdScript: { lua: string; numberOfKeys: number } | undefined;

/** Whether a job of `lane` holding `barrier` crosses shards. */
export function crossesShards(lane: string, barrier: string): boolean {
  return shardOfLane(lane) !== shardOfLane(barrier);
}

export class CrossShardLanes {
  private readonly lanes: LaneStore;

  constructor(private readonly redis: Redis) {
    this.lanes = new LaneStore(redis);
    holdScript ??= loadLuaScript(`${LUA_DIR}hold.lua`);
    if (!('lsHold' in redis)) redis.defineCommand('lsHold', holdScript);
  }

  /** Step 1 above: the job's id and position in `lane`, with `barrier` held for it. */
  async reserve(
    lane: string,
    supersedeKey: string,
    barrier: string,
  ): Promise<{ jobId: string; seq: number }> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const token = randomBytes(8).toString('hex');
      if ((await this.redis.set(TWO_LANE_LOCK, token, 'PX', LOCK_TTL_MS, 'NX')) !== 'OK') {
        await pause(Math.min(5 * 2 ** Math.min(attempt, 6), 200) * (0.5 + Math.random()));
        continue;
      }
      const reserved = await this.lanes.reserve(lane, supersedeKey);
      try {
        await this.hold(barrier, reserved.jobId);
      } catch (err) {
        await this.lanes.unreserve(lane, reserved.jobId, supersedeKey).catch(() => undefined);
        await this.redis.eval(RELEASE_IF_OWNED, 1, TWO_LANE_LOCK, token).catch(() => undefined);
        throw err;
      }
      if (Number(await this.redis.eval(RELEASE_IF_OWNED, 1, TWO_LANE_LOCK, token)) === 1) return reserved;
      // The lock expired between the two steps: another reservation may have come in between, in
      // the other order. Undo both and start again, so the two lanes agree on the order.
      await this.lanes.unreserve(lane, reserved.jobId, supersedeKey);
      await this.lanes.unreserve(barrier, reserved.jobId);
    }
    throw new InfrastructureError(
      `could not take the two-lane reservation lock (${TWO_LANE_LOCK}) within ${LOCK_WAIT_MS} ms; try again`,
    );
  }

  /** `hold.lua` in `barrier`'s shard for `jobId`, pinned. */
  private async hold(barrier: string, jobId: string): Promise<void> {
    const call = (this.redis as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>)
      .lsHold!;
    await call.call(
      this.redis,
      keys.lanePending(barrier),
      prefixOfLane(barrier),
      barrier,
      jobId,
      Date.now() + PIN_MS,
    );
  }

  /** Step 2's release: the job ended for good, its hold leaves `barrier`. */
  async release(barrier: string, jobId: string): Promise<void> {
    await this.lanes.unreserve(barrier, jobId);
  }

  /**
   * Step 3: when `lane`'s head is a hold of a job of another shard that has ended (completed or
   * failed in its shard's queue, or with a done marker) or never came (no job, and its own lane's
   * reservation is gone or older than the grace), drops the hold. True when it dropped one.
   */
  async releaseForeignHead(
    lane: string,
    graceMs: number,
    stateOf: (jobId: string) => Promise<string>,
  ): Promise<boolean> {
    const [head] = await this.lanes.pending(lane);
    if (!head || shardOfJobId(head) === shardOfLane(lane)) return false;
    const state = await stateOf(head);
    let ended = state === 'completed' || state === 'failed';
    if (!ended && state === 'unknown') {
      const ownLane = laneOfJobId(head);
      const at = ownLane ? await this.redis.hget(keys.laneReserved(ownLane), head) : null;
      ended = at === null || Date.now() - Number(at) > graceMs;
    } else if (!ended) {
      ended = (await this.redis.hexists(keys.job(head), 'lsDone')) === 1;
    }
    if (ended) await this.lanes.unreserve(lane, head);
    return ended;
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
