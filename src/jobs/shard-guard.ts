/**
 * The fleet's shard layout is K, the number of queue shards its keys were written with
 * (src/jobs/shards.ts). A lane's shard is its hash mod K, so a process with another K would look
 * for a lane's jobs, counter and status in the wrong shard: a second copy of the lane would start,
 * and per-app ordering would be lost. The first process that writes records K in a well-known key
 * of shard 0 (`{longshore}:shards`); every producer and worker after it compares and refuses to
 * write with another K (docs/redis-cluster.md, "Changing K").
 */
import type { Redis } from 'ioredis';
import { ConfigError } from '../core/errors.ts';
import { keys } from './keys.ts';
import { shardCount } from './shards.ts';

export class ShardLayoutError extends ConfigError {}

/**
 * Records this process's K when the fleet has none yet (data written before sharding existed has
 * none, and was written with K = 1, which is what the first process then records if it runs K = 1),
 * else checks it matches. Throws ShardLayoutError naming both values and what to do.
 */
export async function ensureShardLayout(redis: Redis, k = shardCount()): Promise<void> {
  // SET … NX GET (Redis 7): records K if absent and returns what was there, in one round trip.
  const recorded = (await redis.call('SET', keys.shardLayout, String(k), 'NX', 'GET')) as string | null;
  if (recorded === null || Number(recorded) === k) return;
  throw new ShardLayoutError(
    `this Redis holds the fleet's jobs in ${recorded} queue shards (key ${keys.shardLayout}), but this process has LONGSHORE_QUEUE_SHARDS=${k}: ` +
      `set LONGSHORE_QUEUE_SHARDS=${recorded} on every producer and worker; changing it needs a drained queue and a new Redis (docs/redis-cluster.md, "Changing K")`,
  );
}
