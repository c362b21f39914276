/**
 * Everything the runner knows about a job once the lane said `go` (or, for a job without a lane,
 * once its attempt is recorded): what the handler is given, and what the job's end records.
 */
import {
  type AttemptOutcome,
  type AttemptRecord,
  endedAttempt,
  type NumberedAttempt,
} from '../../jobs/attempts.ts';
import type { JobContract } from '../../jobs/contract.ts';
import type { EndedAttempt } from '../../jobs/ordering/lane-store.ts';
import type { ReleaseReport } from '../../jobs/status.ts';
import type { Fence } from '../../kube/cache-fence.ts';
import type { JobInfo } from '../handler.ts';

export interface RunningJob {
  info: JobInfo;
  contract: JobContract<unknown>;
  payload: unknown;
  app: string | undefined;
  /** Position the producer reserved (the job id's), kept when a retry requeues the job. */
  enqueuedSeq: number | undefined;
  /** It rejoined its lane at the tail (a retry after failing for good, or added late). */
  requeued: boolean;
  /** The attempt before this one, for the job's log ("previous attempt ended: …"). */
  previousAttempt: NumberedAttempt | undefined;
  /**
   * The lane's rename marker as `acquire` read it ('' for none), so the check before the handler
   * needs no read of its own; undefined when nothing read it (a job without a lane).
   */
  renamedMarkerJson?: string;
  /** This attempt's record as it was stored when it started. */
  attemptRecord: AttemptRecord;
  /** What the handler reported about its app's release, for the projection (`ctx.report`). */
  release?: ReleaseReport;
  /**
   * The cache fence the job starts from (src/kube/cache-fence.ts): what the lane's previous job and
   * this job's earlier attempts wrote. Its first use of the cluster waits for it.
   */
  fence?: Fence;
}

/** The closing record of the job's current attempt. */
export function endOfAttempt(
  running: RunningJob,
  outcome: AttemptOutcome | undefined,
  error?: string,
  cacheFence?: string,
): EndedAttempt {
  return {
    attemptNumber: running.info.attemptNumber,
    attemptJson: JSON.stringify(endedAttempt(running.attemptRecord, outcome, error, cacheFence)),
  };
}

/** The job-log line that opens a retried (or recovered) attempt. */
export function attemptStartLine(attemptNumber: number, previous: NumberedAttempt | undefined): string {
  const how = previous?.outcome
    ? `ended: ${previous.outcome}${previous.error ? ` (${previous.error})` : ''}`
    : 'was interrupted (its worker stopped)';
  return `attempt ${attemptNumber}; previous attempt ${how}`;
}
