/**
 * What a rename leaves in the status projection (src/jobs/status.ts). The new name's lane takes
 * over the old one's release fields (revision, image, deployed and failed revision, process types);
 * the old lane keeps its job history and gets the `renamedTo` marker (JSON: the new name and the
 * rename's job id), which fails every later job of the old name with `app OLD was renamed to NEW`
 * — except the rename itself, whose retry must be able to finish.
 */
import type { Redis } from 'ioredis';
import { PROCESS_TYPES_FIELD } from './app-processes.ts';
import { keys } from './keys.ts';
import { laneId } from './lane.ts';

export const RENAMED_FIELD = 'renamedTo';

export interface RenamedMarker {
  name: string;
  jobId: string;
}

const RELEASE_FIELDS = ['revision', 'image', 'deployedRevision', 'failedRevision', PROCESS_TYPES_FIELD];

const appLane = (app: string) => laneId({ kind: 'app', name: app });

export function parseRenamed(raw: string | undefined): RenamedMarker | undefined {
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<RenamedMarker>;
    return typeof parsed.name === 'string' && typeof parsed.jobId === 'string'
      ? { name: parsed.name, jobId: parsed.jobId }
      : undefined;
  } catch {
    return undefined;
  }
}

export async function readRenamed(redis: Redis, app: string): Promise<RenamedMarker | undefined> {
  return parseRenamed((await redis.hget(keys.status(appLane(app)), RENAMED_FIELD)) ?? undefined);
}

/**
 * One transaction: NEW's lane gets OLD's release fields (and loses a marker of its own, from an
 * earlier rename away from NEW), OLD's lane gets the marker. Repeating it changes nothing, unless
 * OLD's release fields were emptied, which only the rename's own completion does (after this).
 */
export async function moveProjection(redis: Redis, from: string, to: string, jobId: string): Promise<void> {
  const source = keys.status(appLane(from));
  const values = await redis.hmget(source, ...RELEASE_FIELDS);
  const fields: Record<string, string> = { updatedAt: String(Date.now()) };
  RELEASE_FIELDS.forEach((field, i) => {
    if (values[i]) fields[field] = values[i]!;
  });
  await redis
    .multi()
    .hset(keys.status(appLane(to)), fields)
    .hdel(keys.status(appLane(to)), RENAMED_FIELD)
    .sadd(keys.statusLanes, appLane(to))
    .hset(source, RENAMED_FIELD, JSON.stringify({ name: to, jobId } satisfies RenamedMarker))
    .exec();
}
