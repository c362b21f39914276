/**
 * Queue shards (docs/redis-cluster.md): the queue is split into K BullMQ queues, each under its
 * own Redis Cluster hash tag, so K primaries can share the fleet's load. A lane (an app, a storage
 * entry, the fleet) belongs to exactly one shard, the one its id hashes to, and every key of the
 * lane, its jobs and its status projection carry that shard's tag: an ordering script still
 * touches one slot, as Redis Cluster requires of a script (and BullMQ of its queue's keys,
 * https://docs.bullmq.io/patterns/redis-cluster).
 *
 * Shard 0's tag is `{longshore}`, today's, so K = 1 (the default) keeps every key name as it was.
 *
 * The hash is FNV-1a (32 bit) of the lane id's UTF-8 bytes, mod K: stable across processes,
 * versions and machines, and not Redis's own CRC16 slot of the name, which would tie the layout to
 * the cluster's slot map.
 */
import { ConfigError } from '../core/errors.ts';
import { laneOfJobId } from './lane.ts';

/** The most shards a fleet may have: far past the primaries one fleet needs. */
export const MAX_QUEUE_SHARDS = 256;

/** Reads LONGSHORE_QUEUE_SHARDS (default 1), or a ConfigError naming the variable. */
export function parseShardCount(raw: string | undefined): number {
  const text = raw?.trim() ?? '';
  if (text === '') return 1;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_QUEUE_SHARDS) {
    throw new ConfigError(
      `LONGSHORE_QUEUE_SHARDS: expected a whole number from 1 to ${MAX_QUEUE_SHARDS} (got ${JSON.stringify(raw)})`,
    );
  }
  return n;
}

let configured: number | undefined;

/**
 * K, the number of queue shards of this process: LONGSHORE_QUEUE_SHARDS, read once. Every process
 * of a fleet must agree on it; the shard guard (shard-guard.ts) refuses to start otherwise.
 */
export function shardCount(): number {
  configured ??= parseShardCount(process.env.LONGSHORE_QUEUE_SHARDS);
  return configured;
}

/** Sets K for this process (benchmarks and tests running several layouts in one process). */
export function setShardCount(k: number): void {
  configured = parseShardCount(String(k));
}

/** Every shard index, 0 … K-1. */
export function allShards(): number[] {
  return Array.from({ length: shardCount() }, (_, i) => i);
}

/** The hash tag of shard `i`: `{longshore}` for shard 0, `{longshore-i}` for the others. */
export function shardPrefix(shard: number): string {
  return shard === 0 ? '{longshore}' : `{longshore-${shard}}`;
}

/** FNV-1a, 32 bit, over UTF-8 bytes (http://www.isthe.com/chongo/tech/comp/fnv/). */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    // Multiply by the FNV prime 16777619 in 32-bit arithmetic.
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The shard of a lane id (`app.web`, `storage.pg`, `fleet`). */
export function shardOfLane(lane: string, k = shardCount()): number {
  return k === 1 ? 0 : fnv1a32(lane) % k;
}

/**
 * The shard of a job id: its lane's for an ordered job (`app.web.17`), the id's own hash for a job
 * without a lane (`sync.fleet.x3f…`), which touches no lane key.
 */
export function shardOfJobId(jobId: string, k = shardCount()): number {
  if (k === 1) return 0;
  const lane = laneOfJobId(jobId);
  return fnv1a32(lane ?? jobId) % k;
}

/** The hash-tag prefix of a lane's keys. */
export function prefixOfLane(lane: string): string {
  return shardPrefix(shardOfLane(lane));
}

/** The hash-tag prefix of a job's keys. */
export function prefixOfJobId(jobId: string): string {
  return shardPrefix(shardOfJobId(jobId));
}

/**
 * Reads LONGSHORE_WORKER_SHARDS (`0,2`): the shards a worker consumes; unset, all of them. An index
 * past K or a malformed list is a ConfigError naming the variable and K.
 */
export function parseWorkerShards(raw: string | undefined, k = shardCount()): number[] {
  const text = raw?.trim() ?? '';
  if (text === '') return Array.from({ length: k }, (_, i) => i);
  const parts = text.split(',').map((p) => p.trim());
  const shards = parts.map(Number);
  if (parts.some((p) => !/^\d+$/.test(p)) || shards.some((s) => s >= k)) {
    throw new ConfigError(
      `LONGSHORE_WORKER_SHARDS: expected shard numbers from 0 to ${k - 1} separated by commas, as LONGSHORE_QUEUE_SHARDS is ${k} (got ${JSON.stringify(raw)})`,
    );
  }
  return [...new Set(shards)].sort((a, b) => a - b);
}

/**
 * Lanes grouped by shard, in shard order: a pipeline or transaction may only touch one Redis
 * Cluster slot, so a read over many lanes sends one per shard.
 */
export function lanesByShard(lanes: readonly string[]): Map<number, string[]> {
  const groups = new Map<number, string[]>();
  for (const lane of lanes) {
    const shard = shardOfLane(lane);
    const group = groups.get(shard);
    if (group) group.push(lane);
    else groups.set(shard, [lane]);
  }
  return new Map([...groups].sort(([a], [b]) => a - b));
}
