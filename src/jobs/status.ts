/**
 * The status projection: what workers record in Redis after every job, per lane (an app, a
 * storage entry, the fleet), so read commands never need cluster credentials.
 */
import type { Redis } from 'ioredis';
import { keys } from './keys.ts';
import { type Lane, parseLaneId } from './lane.ts';

export type JobOutcome = 'completed' | 'failed' | 'superseded';

export interface LaneStatus {
  lane: string;
  kind: Lane['kind'];
  name?: string;
  /** Jobs of the lane not finished yet (queued, waiting their turn, retrying or running). */
  pending: number;
  activeJobId?: string;
  activeType?: string;
  activeSince?: number;
  lastJobId?: string;
  lastType?: string;
  lastOutcome?: JobOutcome;
  lastError?: string;
  lastFinishedAt?: number;
  lastSuccessJobId?: string;
  lastSuccessType?: string;
  lastSuccessSeq?: number;
  lastSuccessAt?: number;
  /** Release revision reported by the last successful job that knew one. */
  revision?: number;
  /** Image of the last successful deploy. */
  image?: string;
  updatedAt?: number;
}

const NUMBERS = new Set([
  'activeSince',
  'lastFinishedAt',
  'lastSuccessSeq',
  'lastSuccessAt',
  'revision',
  'updatedAt',
]);

function toStatus(lane: string, hash: Record<string, string>, pending: number): LaneStatus {
  const parsed = parseLaneId(lane) ?? { kind: 'fleet' as const };
  const status: Record<string, unknown> = {
    lane,
    kind: parsed.kind,
    ...('name' in parsed ? { name: parsed.name } : {}),
    pending,
  };
  for (const [field, value] of Object.entries(hash)) {
    if (field === 'lane') continue;
    status[field] = NUMBERS.has(field) ? Number(value) : value;
  }
  return status as unknown as LaneStatus;
}

export async function readLaneStatus(redis: Redis, lane: string): Promise<LaneStatus | undefined> {
  const [hash, pending] = await Promise.all([
    redis.hgetall(keys.status(lane)),
    redis.zcard(keys.lanePending(lane)),
  ]);
  if (Object.keys(hash).length === 0 && pending === 0) return undefined;
  return toStatus(lane, hash, pending);
}

/** Every lane with a projection (optionally one kind), most recently updated first. */
export async function listLaneStatuses(redis: Redis, kind?: Lane['kind']): Promise<LaneStatus[]> {
  const lanes = (await redis.zrevrange(keys.statusIndex, 0, -1)).filter(
    (l) => !kind || parseLaneId(l)?.kind === kind,
  );
  if (lanes.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const lane of lanes) {
    pipeline.hgetall(keys.status(lane));
    pipeline.zcard(keys.lanePending(lane));
  }
  const replies = (await pipeline.exec()) ?? [];
  return lanes.map((lane, i) =>
    toStatus(
      lane,
      (replies[i * 2]?.[1] as Record<string, string>) ?? {},
      Number(replies[i * 2 + 1]?.[1] ?? 0),
    ),
  );
}

/** Forget a lane's projection (after an app is destroyed or renamed). */
export async function removeLaneStatus(redis: Redis, lane: string): Promise<void> {
  await redis.multi().del(keys.status(lane)).zrem(keys.statusIndex, lane).exec();
}
