/**
 * Every Redis key longshore uses besides BullMQ's own. A lane's keys, its jobs' hashes and its
 * status projection share the hash tag of the lane's queue shard (src/jobs/shards.ts), so the
 * ordering scripts can touch them and BullMQ's keys atomically, on one Redis or one Cluster slot.
 * Fleet-wide keys (profiles, registry, scheduler locks, the cancel channel) stay under shard 0's
 * tag, `{longshore}`, which with one shard (the default) is every key's, as before sharding.
 */
import { prefixOfJobId, prefixOfLane, shardPrefix } from './shards.ts';

/** Shard 0's hash tag: the prefix of fleet-wide keys. */
export const KEY_PREFIX = '{longshore}';
export const QUEUE_NAME = 'jobs';

/**
 * Fields longshore adds to BullMQ's job hash (`{longshore}:jobs:<id>`), so they live and expire
 * with the job: `lsDone` (the outcome, answering duplicate deliveries), `lsAN` (number of attempts)
 * and `lsA:<n>` (one record per attempt); `lsDestroy` is a destroy's plan, written before its first
 * cluster write so a retry knows it already started (src/workers/destroy/plan.ts); `lsRename` is a
 * rename's recorded step (src/workers/rename/plan.ts).
 */
export const JOB_FIELDS = {
  done: 'lsDone',
  attemptCount: 'lsAN',
  attemptPrefix: 'lsA:',
  destroyPlan: 'lsDestroy',
  /** A rename's recorded step (src/workers/rename/plan.ts). */
  renamePlan: 'lsRename',
  /** A rollback's record of the config revision before it (src/workers/rollback/plan.ts). */
  rollbackPlan: 'lsRollback',
  /** A run's Job as created (its uid), its relay cursor and its end (src/workers/run/run-record.ts). */
  runJob: 'lsRun',
  runRelay: 'lsRunLog',
  runEnd: 'lsRunEnd',
  /**
   * A deploy's release task, the same three for its Job (src/workers/deploy/release-task.ts); the
   * end also records which revision's task succeeded, so a retry never runs it twice.
   */
  releaseJob: 'lsRelease',
  releaseRelay: 'lsReleaseLog',
  releaseEnd: 'lsReleaseEnd',
  /**
   * A deploy's postdeploy task, the same three (src/workers/deploy/postdeploy-task.ts), and the
   * app release revision this job made (`lsPostdeployDue`, written before its first write): a
   * retry whose upgrade finds that revision deployed knows the rollout was this job's.
   */
  postdeployJob: 'lsPostdeploy',
  postdeployRelay: 'lsPostdeployLog',
  postdeployEnd: 'lsPostdeployEnd',
  postdeployDue: 'lsPostdeployDue',
} as const;

const P = KEY_PREFIX;
/** A lane's key prefix (its shard's tag). */
const L = prefixOfLane;
/** A job's key prefix (its shard's tag). */
const J = prefixOfJobId;

export const keys = {
  /** BullMQ's key prefix for shard `shard`'s queue: `{longshore}:jobs:<jobId>` is a job hash. */
  bull: (shard: number) => `${shardPrefix(shard)}:${QUEUE_NAME}:`,
  laneSeq: (lane: string) => `${L(lane)}:lane:${lane}:seq`,
  /** Jobs of the lane not yet finished, scored by their position. */
  lanePending: (lane: string) => `${L(lane)}:lane:${lane}:pending`,
  /** When each pending slot was reserved (ms), to drop slots whose producer never added the job. */
  laneReserved: (lane: string) => `${L(lane)}:lane:${lane}:reserved`,
  /** Newest job per supersede key (`deploy`), so older ones can be skipped. */
  laneLatest: (lane: string) => `${L(lane)}:lane:${lane}:latest`,
  /** Status projection of a lane (app, storage entry): last job, outcome, revision, timestamps. */
  status: (lane: string) => `${L(lane)}:status:${lane}`,
  /** Lanes of shard `shard` with a status projection (the ordering scripts add to it). */
  statusLanes: (shard: number) => `${shardPrefix(shard)}:status:lanes`,
  /** BullMQ's hash of one job, which also holds longshore's JOB_FIELDS. */
  job: (jobId: string) => `${J(jobId)}:${QUEUE_NAME}:${jobId}`,
  /** Pub/sub channel on which operators ask workers to cancel a running job. */
  cancelChannel: `${P}:cancel`,
  /** The number of queue shards the fleet's data was written with (src/jobs/shard-guard.ts). */
  shardLayout: `${P}:shards`,
  /** A `logs` or `run` job's lines, a Redis stream the CLI reads (src/jobs/log-stream.ts). */
  logStream: (jobId: string) => `${J(jobId)}:logs:${jobId}`,
  /** Refreshed by the CLI reading a `logs -f` or `run` job; the worker stops relaying once it is gone. */
  logReader: (jobId: string) => `${J(jobId)}:logs:${jobId}:reader`,
  /** An interactive run's terminal output, worker → CLI (src/jobs/tty-stream.ts). */
  ttyOut: (jobId: string) => `${J(jobId)}:logs:${jobId}:tty-out`,
  /** An interactive run's keystrokes and resizes, CLI → worker (src/jobs/tty-stream.ts). */
  ttyIn: (jobId: string) => `${J(jobId)}:logs:${jobId}:tty-in`,
};
