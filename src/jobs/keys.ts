/**
 * Every Redis key longshore uses besides BullMQ's own. All share the `{longshore}` hash tag so the
 * ordering scripts can touch them and BullMQ's keys atomically, on one Redis or one Cluster slot.
 */
export const KEY_PREFIX = '{longshore}';
export const QUEUE_NAME = 'jobs';

/** Kept with the job's retention: attempt history, step ledger and done markers outlive the job a little. */
export const JOB_RECORD_TTL_SECONDS = 31 * 24 * 3600;

const P = KEY_PREFIX;

export const keys = {
  /** BullMQ's key prefix for the jobs queue: `{longshore}:jobs:<jobId>` is a job hash. */
  bull: `${P}:${QUEUE_NAME}:`,
  laneSeq: (lane: string) => `${P}:lane:${lane}:seq`,
  /** Jobs of the lane not yet finished, scored by their position. */
  lanePending: (lane: string) => `${P}:lane:${lane}:pending`,
  /** When each pending slot was reserved (ms), to drop slots whose producer never added the job. */
  laneReserved: (lane: string) => `${P}:lane:${lane}:reserved`,
  /** Newest job per supersede key (`deploy`), so older ones can be skipped. */
  laneLatest: (lane: string) => `${P}:lane:${lane}:latest`,
  /** Lanes with pending jobs. */
  lanes: `${P}:lanes`,
  /** Status projection of a lane (app, storage entry): last job, outcome, revision, timestamps. */
  status: (lane: string) => `${P}:status:${lane}`,
  /** Lanes with a status projection, scored by last update (ms). */
  statusIndex: `${P}:status:index`,
  jobDone: (jobId: string) => `${P}:job:${jobId}:done`,
  jobAttempts: (jobId: string) => `${P}:job:${jobId}:attempts`,
  jobSteps: (jobId: string) => `${P}:job:${jobId}:steps`,
  /** Pub/sub channel on which operators ask workers to cancel a running job. */
  cancelChannel: `${P}:cancel`,
  jobPrefix: `${P}:job:`,
};
