/**
 * What a rename leaves in the status projection (src/jobs/status.ts). The new name's lane takes
 * over the old one's release fields (revision, image, deployed and failed revision, process types);
 * the old lane keeps its job history and gets the `renamedTo` marker (JSON: the new name, the
 * rename's job id and, once the rename ended, `finishedAt`), which fails later jobs of the old
 * name with `app OLD was renamed to NEW` (the job runner, before any handler; `renamedVerdict`):
 *
 * - the rename itself runs: its retry must be able to finish;
 * - a `deploy` enqueued (BullMQ's `job.timestamp`) after the rename finished creates the app anew
 *   under the old name, from revision 1 as after a destroy, and clears the marker: the name is free
 *   again once the rename is done, not burnt for ever;
 * - every other job fails: one enqueued before the rename finished (queued behind it in the lane,
 *   a deploy too), and any job but a deploy while the marker stands.
 *
 * The move writes the marker without `finishedAt`; the rename's end (the finish script, with the
 * job's done marker) writes it again with the worker's clock (statusOfRelease, `renamedTo`). A
 * marker without `finishedAt` counts as finished at time 0: markers written before the field
 * existed belong to renames that completed, and while a rename runs no other job of the old name
 * does (the rename is the head of its lane), so no job can tell it apart from a finished one.
 * Comparing the producer's clock (job.timestamp) with the worker's: a skew between the two
 * machines moves the boundary by as much.
 */
import type { Redis } from 'ioredis';
import { PROCESS_TYPES_FIELD } from './app-processes.ts';
import { keys } from './keys.ts';
import { laneId } from './lane.ts';

export const RENAMED_FIELD = 'renamedTo';

export interface RenamedMarker {
  name: string;
  jobId: string;
  /** When the rename ended (ms since the epoch, the worker's clock); absent: read as 0 (above). */
  finishedAt?: number;
}

const RELEASE_FIELDS = ['revision', 'image', 'deployedRevision', 'failedRevision', PROCESS_TYPES_FIELD];

const appLane = (app: string) => laneId({ kind: 'app', name: app });

export function parseRenamed(raw: string | undefined): RenamedMarker | undefined {
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<RenamedMarker>;
    if (typeof parsed.name !== 'string' || typeof parsed.jobId !== 'string') return undefined;
    return {
      name: parsed.name,
      jobId: parsed.jobId,
      ...(typeof parsed.finishedAt === 'number' ? { finishedAt: parsed.finishedAt } : {}),
    };
  } catch {
    return undefined;
  }
}

/** The marker's JSON (the `renamedTo` field of the old name's status hash). */
export function renamedJson(marker: RenamedMarker): string {
  return JSON.stringify({
    name: marker.name,
    jobId: marker.jobId,
    ...(marker.finishedAt !== undefined ? { finishedAt: marker.finishedAt } : {}),
  } satisfies RenamedMarker);
}

/**
 * What a job of the old name does while its marker stands: `run` (the rename that wrote it),
 * `reclaim` (a deploy enqueued after the rename finished: clear the marker, then deploy) or
 * `refuse` (fail with `app OLD was renamed to NEW`).
 */
export function renamedVerdict(
  marker: RenamedMarker,
  job: { id: string; type: string; enqueuedAt: number },
): 'run' | 'reclaim' | 'refuse' {
  if (marker.jobId === job.id) return 'run';
  if (job.type === 'deploy' && job.enqueuedAt > (marker.finishedAt ?? 0)) return 'reclaim';
  return 'refuse';
}

export async function readRenamed(redis: Redis, app: string): Promise<RenamedMarker | undefined> {
  return parseRenamed((await redis.hget(keys.status(appLane(app)), RENAMED_FIELD)) ?? undefined);
}

/** The old name is an ordinary app again (a deploy took it back, `renamedVerdict`). */
export async function clearRenamed(redis: Redis, app: string): Promise<void> {
  await redis.hdel(keys.status(appLane(app)), RENAMED_FIELD);
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
    .hset(source, RENAMED_FIELD, renamedJson({ name: to, jobId }))
    .exec();
}
