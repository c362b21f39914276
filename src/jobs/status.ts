/**
 * The status projection: what workers record in Redis after every job, per lane (an app, a
 * storage entry, the fleet), so read commands never need cluster credentials.
 *
 * Stored per lane in `{longshore}:status:<lane>`: `last` (JSON: the last finished job), `success`
 * (JSON: the last successful one), `change` (JSON: the last successful operator change, which a
 * retry must not undo; see docs/ordering.md), `revision` and `image` (as last reported by a
 * success), `deployedRevision` and `failedRevision` (JSON: the app release as the last job that
 * reached it left it, failed jobs included), and `updatedAt`. A completed `destroy` empties the
 * app's release fields (revision, image, deployed/failed revision, process types): the lane then
 * reads as `destroyed` until the app's next job other than a reconcile, and its job history stays
 * readable. A completed `rename` moves the release fields to the new name's lane and marks the
 * old one `renamedTo` (src/jobs/renamed.ts). The running job is not stored: it is the lane's head when BullMQ has it active.
 */
import type { Redis } from 'ioredis';
import { AUTOSCALED_TYPES_FIELD, PROCESS_TYPES_FIELD } from './app-processes.ts';
import { countsAsNewerWork } from './contract.ts';
import { keys } from './keys.ts';
import { type Lane, parseLaneId } from './lane.ts';
import { parseRenamed, RENAMED_FIELD } from './renamed.ts';
import { allShards, lanesByShard, shardOfLane } from './shards.ts';

export type JobOutcome = 'completed' | 'failed' | 'superseded';

/** The `last` field. */
export interface LastJobRecord {
  jobId: string;
  type: string;
  outcome: JobOutcome;
  error?: string;
  finishedAt: number;
}

/**
 * The `success` field (any job; `seq` is its position in the lane when it ran) and the `change`
 * field (the last operator change to succeed — never a reconcile; `seq` is the position its
 * producer reserved, which a requeued retry keeps).
 */
export interface LastSuccessRecord {
  jobId: string;
  type: string;
  seq: number;
  at: number;
}

export interface LaneStatus {
  lane: string;
  kind: Lane['kind'];
  name?: string;
  /** Jobs of the lane not finished yet (queued, waiting their turn, retrying or running). */
  pending: number;
  /** The lane's head when it is running. */
  activeJobId?: string;
  lastJobId?: string;
  lastType?: string;
  lastOutcome?: JobOutcome;
  lastError?: string;
  lastFinishedAt?: number;
  lastSuccessJobId?: string;
  lastSuccessType?: string;
  lastSuccessSeq?: number;
  lastSuccessAt?: number;
  /** The last successful job that counts as newer work (an operator change, not a reconcile). */
  lastChangeJobId?: string;
  lastChangeType?: string;
  lastChangeSeq?: number;
  lastChangeAt?: number;
  /** Release revision reported by the last successful job that knew one. */
  revision?: number;
  /** Image of the last successful deploy. */
  image?: string;
  /** The app release's deployed revision, as the last job that reached it saw (failed jobs too). */
  deployedRevision?: DeployedRevisionRecord;
  /** The app release's last change when it failed (absent once a later change deployed). */
  failedRevision?: FailedRevisionRecord;
  /** The app's last change was a completed `destroy`, and no job but a reconcile ran since (apps:list hides it). */
  destroyed?: boolean;
  /** A rename moved the app to this name (src/jobs/renamed.ts): jobs of this name fail. */
  renamedTo?: string;
  updatedAt?: number;
}

/** The `deployedRevision` field. */
export interface DeployedRevisionRecord {
  revision: number;
  image?: string;
  /** Set when the deployed revision restores an earlier one (a rollback). */
  rollbackTo?: number;
}

/** The `failedRevision` field. */
export interface FailedRevisionRecord {
  revision: number;
  reason: string;
}

/**
 * What a job reports about its app's release (HandlerContext.report). `failed: null` clears a
 * failure a later change superseded.
 */
export interface ReleaseReport {
  deployed?: DeployedRevisionRecord;
  failed?: FailedRevisionRecord | null;
  /**
   * The app is gone (a destroy; a rename, whose move wrote the old name's `renamedTo` marker
   * already, src/jobs/renamed.ts): forget every release field of the projection.
   */
  destroyed?: true;
}

function parse<T>(raw: string | undefined): T | undefined {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}

function toStatus(
  lane: string,
  hash: Record<string, string>,
  pending: number,
  active: string | undefined,
): LaneStatus {
  const parsed = parseLaneId(lane) ?? { kind: 'fleet' as const };
  const last = parse<LastJobRecord>(hash.last);
  const success = parse<LastSuccessRecord>(hash.success);
  const change = parse<LastSuccessRecord>(hash.change);
  const status: LaneStatus = { lane, kind: parsed.kind, pending };
  if ('name' in parsed) status.name = parsed.name;
  if (active) status.activeJobId = active;
  if (last) {
    status.lastJobId = last.jobId;
    status.lastType = last.type;
    status.lastOutcome = last.outcome;
    if (last.error) status.lastError = last.error;
    status.lastFinishedAt = last.finishedAt;
  }
  if (success) {
    status.lastSuccessJobId = success.jobId;
    status.lastSuccessType = success.type;
    status.lastSuccessSeq = success.seq;
    status.lastSuccessAt = success.at;
  }
  if (change) {
    status.lastChangeJobId = change.jobId;
    status.lastChangeType = change.type;
    status.lastChangeSeq = change.seq;
    status.lastChangeAt = change.at;
  }
  // Destroyed: the last operator change was a destroy, and nothing but a job that is not newer work
  // finished since — a reconcile (a no-op for an app without a record: sync may have enqueued it
  // before the destroy) a read in the app's lane (a `config:show` of the destroyed app) or a dry run.
  if (change?.type === 'destroy' && last && (last.type === 'destroy' || !countsAsNewerWork(last.type)))
    status.destroyed = true;
  const renamed = parseRenamed(hash[RENAMED_FIELD]);
  if (renamed) status.renamedTo = renamed.name;
  if (hash.revision) status.revision = Number(hash.revision);
  if (hash.image) status.image = hash.image;
  const deployed = parse<DeployedRevisionRecord>(hash.deployedRevision);
  if (deployed) {
    status.deployedRevision = deployed;
    // Written on failures too (a rollback-on-failure or a cancel restores a revision), so it is the
    // fresher of the two: `revision` and `image` agree with it wherever both are shown.
    status.revision = deployed.revision;
    if (deployed.image) status.image = deployed.image;
  }
  const failed = parse<FailedRevisionRecord>(hash.failedRevision);
  if (failed) status.failedRevision = failed;
  if (hash.updatedAt) status.updatedAt = Number(hash.updatedAt);
  return status;
}

/** Reads several lanes: one round trip per queue shard (a pipeline stays in one slot). */
async function readLanes(redis: Redis, lanes: string[]): Promise<LaneStatus[]> {
  const byLane = new Map<string, LaneStatus>();
  await Promise.all(
    [...lanesByShard(lanes)].map(async ([shard, group]) => {
      for (const [i, status] of (await readShardLanes(redis, shard, group)).entries())
        byLane.set(group[i]!, status);
    }),
  );
  return lanes.map((lane) => byLane.get(lane)!);
}

/** Reads lanes of one shard in one round trip. */
async function readShardLanes(redis: Redis, shard: number, lanes: string[]): Promise<LaneStatus[]> {
  if (lanes.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const lane of lanes) {
    pipeline.hgetall(keys.status(lane));
    pipeline.zcard(keys.lanePending(lane));
    pipeline.zrange(keys.lanePending(lane), 0, 0);
  }
  const replies = (await pipeline.exec()) ?? [];
  const heads = lanes.map((_, i) => ((replies[i * 3 + 2]?.[1] as string[]) ?? [])[0]);
  // A head is running when BullMQ has it in its shard's active list.
  const activeCheck = redis.pipeline();
  for (const head of heads) activeCheck.lpos(`${keys.bull(shard)}active`, head ?? '');
  const active = (await activeCheck.exec()) ?? [];
  return lanes.map((lane, i) =>
    toStatus(
      lane,
      (replies[i * 3]?.[1] as Record<string, string>) ?? {},
      Number(replies[i * 3 + 1]?.[1] ?? 0),
      active[i]?.[1] !== null && active[i]?.[1] !== undefined ? heads[i] : undefined,
    ),
  );
}

export async function readLaneStatus(redis: Redis, lane: string): Promise<LaneStatus | undefined> {
  const [status] = await readLanes(redis, [lane]);
  if (!status || (status.updatedAt === undefined && status.pending === 0)) return undefined;
  return status;
}

/** Every lane with a projection (optionally one kind), most recently updated first. */
export async function listLaneStatuses(redis: Redis, kind?: Lane['kind']): Promise<LaneStatus[]> {
  const lanes = (await allStatusLanes(redis)).filter((l) => !kind || parseLaneId(l)?.kind === kind);
  const statuses = await readLanes(redis, lanes);
  return statuses.sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0) || a.lane.localeCompare(b.lane));
}

/** Forget a lane's projection (after an app is destroyed or renamed). */
export async function removeLaneStatus(redis: Redis, lane: string): Promise<void> {
  await redis
    .multi()
    .del(keys.status(lane))
    .srem(keys.statusLanes(shardOfLane(lane)), lane)
    .exec();
}

/** Every lane with a projection, across the queue shards. */
export async function allStatusLanes(redis: Redis): Promise<string[]> {
  const perShard = await Promise.all(allShards().map((shard) => redis.smembers(keys.statusLanes(shard))));
  return perShard.flat();
}

/**
 * Projection fields a worker writes when a job of the lane completed; with `change` (the job is an
 * operator change, at that enqueue position) also the `change` field.
 */
export function statusOnSuccess(
  job: { id: string; type: string; seq?: number },
  now: number,
  reported: { revision?: number; image?: string },
  change?: { seq: number },
): Record<string, string | number> {
  const success = JSON.stringify({
    jobId: job.id,
    type: job.type,
    seq: job.seq ?? 0,
    at: now,
  } satisfies LastSuccessRecord);
  return {
    last: JSON.stringify({
      jobId: job.id,
      type: job.type,
      outcome: 'completed',
      finishedAt: now,
    } satisfies LastJobRecord),
    success,
    // The same record unless a retry requeued the job at a later position (rare): no second JSON.
    ...(change
      ? {
          change:
            change.seq === (job.seq ?? 0)
              ? success
              : JSON.stringify({
                  jobId: job.id,
                  type: job.type,
                  seq: change.seq,
                  at: now,
                } satisfies LastSuccessRecord),
        }
      : {}),
    updatedAt: now,
    ...(reported.revision !== undefined ? { revision: reported.revision } : {}),
    ...(reported.image ? { image: reported.image } : {}),
  };
}

/** Projection fields a worker writes when a job of the lane ended without completing. */
export function statusOnEnd(
  job: { id: string; type: string },
  now: number,
  outcome: 'failed' | 'superseded',
  error?: string,
): Record<string, string | number> {
  const last: LastJobRecord = {
    jobId: job.id,
    type: job.type,
    outcome,
    finishedAt: now,
    ...(error ? { error } : {}),
  };
  return { last: JSON.stringify(last), updatedAt: now };
}

/** Projection fields of a job's release report (written with its success or failure). */
export function statusOfRelease(report: ReleaseReport | undefined): Record<string, string> {
  if (!report) return {};
  // Empty fields read as absent; the process types go too, so the CLI checks nothing against them.
  if (report.destroyed)
    return {
      revision: '',
      image: '',
      deployedRevision: '',
      failedRevision: '',
      [PROCESS_TYPES_FIELD]: '',
      [AUTOSCALED_TYPES_FIELD]: '',
    };
  const fields: Record<string, string> = {};
  if (report.deployed) fields.deployedRevision = JSON.stringify(report.deployed);
  // An empty field reads as absent (toStatus parses nothing from it).
  if (report.failed !== undefined) fields.failedRevision = report.failed ? JSON.stringify(report.failed) : '';
  return fields;
}
