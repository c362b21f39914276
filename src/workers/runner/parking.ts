/**
 * A job picked while another job heads its lane: put back as delayed, and promoted when the head
 * finishes (job-records.ts). The delay is only the fallback for a lost promotion (the head's
 * worker died), growing with each park.
 */
import { DelayedError, type Job } from 'bullmq';
import type { Logger } from '../../core/logger.ts';
import type { LaneStore } from '../../jobs/ordering/lane-store.ts';
import type { WorkerMetrics } from '../metrics.ts';

/** First and longest wait of a parked job before it looks at its lane again (promotion is the fast path). */
export const PARK_BASE_MS = 500;
export const PARK_MAX_MS = 30_000;

export interface ParkingDeps {
  lanes: LaneStore;
  metrics: WorkerMetrics;
  logger: Logger;
  reservationGraceMs: number;
}

/** Parks `job` behind `head` of `lane`; always throws DelayedError, as BullMQ expects after the move. */
export async function park(
  deps: ParkingDeps,
  job: Job,
  token: string | undefined,
  lane: string,
  type: string,
  head: string,
): Promise<never> {
  deps.metrics.orderingWaits.inc({ type });
  const parks = Math.max(1, (job.attemptsStarted ?? 1) - (job.attemptsMade ?? 0));
  const delay = Math.min(PARK_BASE_MS * 2 ** Math.min(parks - 1, 10), PARK_MAX_MS);
  await job.moveToDelayed(Date.now() + delay, token);
  // The head may have finished between our acquire and the move: then nobody would promote us.
  if ((await deps.lanes.turn(lane, job.id!, deps.reservationGraceMs)) !== 'behind') {
    await job.promote().catch(() => undefined);
  }
  deps.logger.debug({ jobId: job.id, lane, head, delay }, 'job parked behind its lane head');
  throw new DelayedError();
}
