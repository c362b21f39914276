/**
 * What a rename leaves in the status projection (src/jobs/status.ts). The new name's lane takes
 * over the old one's release fields (revision, image, deployed and failed revision, process types);
 * the old lane keeps its job history and gets the `renamedTo` marker (JSON: the new name, the
 * rename's job id and `seq`, a position in the old name's lane), which fails later jobs of the old
 * name with `app OLD was renamed to NEW` (the job runner, before any handler; `renamedVerdict`):
 *
 * - the rename itself runs: its retry must be able to finish;
 * - a `deploy` whose position (the seq its producer reserved, docs/ordering.md) is after `seq`
 *   creates the app anew under the old name, from revision 1 as after a destroy, and clears the
 *   marker: the name is free again once the rename is done, not burnt for ever;
 * - every other job fails: one at or before `seq` (enqueued before the move: before the rename or
 *   while it ran, queued behind it in the lane — a deploy too), and any job but a deploy while the
 *   marker stands. A `jobs:retry` keeps the position its producer reserved, so it fails again.
 *
 * `seq` is the old lane's counter (the highest position reserved so far) read by the move, in the
 * same transaction as the marker: no clock is compared, and the marker is complete from the moment
 * it exists, so a rename that stalls after the move and is failed by BullMQ without our finish
 * script leaves a marker that still refuses the jobs enqueued while it ran. A deploy enqueued after
 * the move but before the rename's end has a greater seq and reclaims the name, which is right: the
 * rename heads the old lane until it ends (it holds the position at or below `seq`), so that deploy
 * runs only once the rename is over, as one enqueued after the end would. Reading the counter at
 * the end instead would need the end to run, which is what a stall skips.
 *
 * Markers written before `seq` existed (`finishedAt`, the worker's clock at the rename's end, or
 * nothing: an older longshore, or a move whose end never ran) get a position the first time a job
 * of the old name other than the rename meets them (`pinRenamed`): the old lane's counter then.
 * That job, like everything enqueued before it, fails; a deploy enqueued after it reclaims the
 * name. Reading `finishedAt` against the enqueue time instead would bring back the clock skew, and
 * a marker without it cannot tell a finished rename from a stalled one; pinning refuses at most one
 * deploy too many, and its log says that the next one takes the name back. While a rename runs no
 * other job of the old name starts (the rename heads the lane), so the first job to meet a marker
 * is after the rename's end.
 */
import type { Redis } from 'ioredis';
import { AUTOSCALED_TYPES_FIELD, PROCESS_TYPES_FIELD } from './app-processes.ts';
import { keys } from './keys.ts';
import { laneId } from './lane.ts';
import { shardOfLane } from './shards.ts';

export const RENAMED_FIELD = 'renamedTo';

export interface RenamedMarker {
  name: string;
  jobId: string;
  /**
   * The old lane's seq counter when the projection moved: jobs at or before it were enqueued
   * before the move. Absent in markers written before the field (pinned on first use, above).
   */
  seq?: number;
}

const RELEASE_FIELDS = [
  'revision',
  'image',
  'deployedRevision',
  'failedRevision',
  PROCESS_TYPES_FIELD,
  AUTOSCALED_TYPES_FIELD,
];

const appLane = (app: string) => laneId({ kind: 'app', name: app });

export function parseRenamed(raw: string | undefined): RenamedMarker | undefined {
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<RenamedMarker>;
    if (typeof parsed.name !== 'string' || typeof parsed.jobId !== 'string') return undefined;
    return {
      name: parsed.name,
      jobId: parsed.jobId,
      ...(Number.isInteger(parsed.seq) && parsed.seq! >= 0 ? { seq: parsed.seq } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * Lua shared by the two scripts below: the marker's JSON, fields in a fixed order (as
 * `parseRenamed` reads it), and the lane counter (0 for a lane that never reserved a position).
 */
const MARKER_LUA = `
local function markerJson(name, jobId, seq)
  return '{"name":' .. cjson.encode(name) .. ',"jobId":' .. cjson.encode(jobId) .. ',"seq":' .. seq .. '}'
end
local function counter(key)
  return tonumber(redis.call('GET', key) or '0')
end
local function decoded(raw)
  if not raw then return nil end
  local ok, marker = pcall(cjson.decode, raw)
  if ok and type(marker) == 'table' then return marker end
  return nil
end
`;

/**
 * KEYS[1] the old lane's status hash, KEYS[2] its seq counter; ARGV[1] the marker field, ARGV[2]
 * the new name, ARGV[3] the rename's job id. Writes the marker with the counter as it is now,
 * unless the hash already holds this rename's marker with a position (the move run again by a
 * retry keeps the first one). Returns the marker's JSON.
 */
const MARK_MOVED = `${MARKER_LUA}
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local old = decoded(raw)
if old and old.name == ARGV[2] and old.jobId == ARGV[3] and type(old.seq) == 'number' then return raw end
local json = markerJson(ARGV[2], ARGV[3], counter(KEYS[2]))
redis.call('HSET', KEYS[1], ARGV[1], json)
return json
`;

/**
 * KEYS[1] the old lane's status hash, KEYS[2] its seq counter; ARGV[1] the marker field. Gives a
 * marker without a position the counter as it is now; one with a position is left as it is.
 * Returns the marker's JSON (false when there is none).
 */
const PIN = `${MARKER_LUA}
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local old = decoded(raw)
if not old or type(old.seq) == 'number' or type(old.name) ~= 'string' or type(old.jobId) ~= 'string' then
  return raw
end
local json = markerJson(old.name, old.jobId, counter(KEYS[2]))
redis.call('HSET', KEYS[1], ARGV[1], json)
return json
`;

/** What a job of the old name (its id, type and the lane position its producer reserved) does. */
export type RenamedVerdict = 'run' | 'reclaim' | 'refuse';

/**
 * What a job of the old name does while its marker stands: `run` (the rename that wrote it),
 * `reclaim` (a deploy enqueued after the move: clear the marker, then deploy) or `refuse` (fail
 * with `app OLD was renamed to NEW`). A marker without a position refuses: pin it first.
 */
export function renamedVerdict(
  marker: RenamedMarker,
  job: { id: string; type: string; seq: number },
): RenamedVerdict {
  if (marker.jobId === job.id) return 'run';
  if (job.type === 'deploy' && marker.seq !== undefined && job.seq > marker.seq) return 'reclaim';
  return 'refuse';
}

export async function readRenamed(redis: Redis, app: string): Promise<RenamedMarker | undefined> {
  return parseRenamed((await redis.hget(keys.status(appLane(app)), RENAMED_FIELD)) ?? undefined);
}

/** Gives a marker written before `seq` existed its position (see the top of this file). */
export async function pinRenamed(redis: Redis, app: string): Promise<RenamedMarker | undefined> {
  const lane = appLane(app);
  const raw = await redis.eval(PIN, 2, keys.status(lane), keys.laneSeq(lane), RENAMED_FIELD);
  return parseRenamed(typeof raw === 'string' ? raw : undefined);
}

/**
 * The marker and the verdict for a job of `app`'s lane (undefined: the app was not renamed away).
 * `pinned`: the marker had no position and got one now (the caller says so in the job's log).
 * `markerJson`: the marker as already read ('' for none), e.g. by the lane's `acquire`, which
 * returns it with `go` so the job runner's check costs no round trip; read here without it.
 */
export async function renamedDecision(
  redis: Redis,
  app: string,
  job: { id: string; type: string; seq: number },
  markerJson?: string,
): Promise<{ marker: RenamedMarker; verdict: RenamedVerdict; pinned: boolean } | undefined> {
  let marker = markerJson === undefined ? await readRenamed(redis, app) : parseRenamed(markerJson);
  if (!marker) return undefined;
  let pinned = false;
  if (marker.seq === undefined && marker.jobId !== job.id) {
    marker = await pinRenamed(redis, app);
    if (!marker) return undefined;
    pinned = true;
  }
  return { marker, verdict: renamedVerdict(marker, job), pinned };
}

/** The old name is an ordinary app again (a deploy took it back, `renamedVerdict`). */
export async function clearRenamed(redis: Redis, app: string): Promise<void> {
  await redis.hdel(keys.status(appLane(app)), RENAMED_FIELD);
}

/**
 * One transaction: NEW's lane gets OLD's release fields (and loses a marker of its own, from an
 * earlier rename away from NEW), OLD's lane gets the marker with OLD's lane counter as it is now
 * (`seq`, see the top of this file). Repeating it changes nothing (the marker keeps its first
 * position), unless OLD's release fields were emptied, which only the rename's own completion does
 * (after this).
 */
export async function moveProjection(redis: Redis, from: string, to: string, jobId: string): Promise<void> {
  const source = keys.status(appLane(from));
  const values = await redis.hmget(source, ...RELEASE_FIELDS);
  const fields: Record<string, string> = { updatedAt: String(Date.now()) };
  RELEASE_FIELDS.forEach((field, i) => {
    if (values[i]) fields[field] = values[i]!;
  });
  const target = redis
    .multi()
    .hset(keys.status(appLane(to)), fields)
    .hdel(keys.status(appLane(to)), RENAMED_FIELD)
    .sadd(keys.statusLanes(shardOfLane(appLane(to))), appLane(to));
  const mark = (m: ReturnType<Redis['multi']>) =>
    m.eval(MARK_MOVED, 2, source, keys.laneSeq(appLane(from)), RENAMED_FIELD, to, jobId);
  if (shardOfLane(appLane(from)) === shardOfLane(appLane(to))) {
    await execAll(mark(target));
    return;
  }
  // The two lanes are in different queue shards (two Redis Cluster slots): NEW's side first, then
  // OLD's marker. A retry after a crash between them repeats the first (the same fields, as OLD's
  // are only emptied after the marker) and then sets the marker: the same end state.
  await execAll(target);
  await execAll(mark(redis.multi()));
}

async function execAll(multi: ReturnType<Redis['multi']>): Promise<void> {
  const replies = await multi.exec();
  // A command's error inside EXEC is a reply, not a rejection: the move must not pass for done.
  const failed = replies?.find(([err]) => err)?.[0];
  if (failed) throw failed;
}
