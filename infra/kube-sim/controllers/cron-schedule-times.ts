/**
 * When a CronJob should run, as pkg/controller/cronjob/utils.go computes it:
 * - mostRecentScheduleTime: the newest activation after the earliest time (status.lastScheduleTime,
 *   else creationTimestamp; with startingDeadlineSeconds no earlier than now − deadline) that is
 *   not after now, and whether more than 100 were missed (TooManyMissedTimes);
 * - nextScheduleTimeDuration: how long until the activation after that one, plus upstream's
 *   nextScheduleDelta (100 ms) so the requeue lands just past it.
 * All times here are the CronJob clock's (controllers/cron-clock.ts), in ms since the epoch.
 */
import type { CronSchedule } from './cron-schedule.ts';

/** Upstream nextScheduleDelta: requeue a little after the activation, never just before it. */
export const NEXT_SCHEDULE_DELTA_MS = 100;
/** More missed activations than this is "too many" (upstream's manyMissed). */
const MANY_MISSED = 100;

export interface ScheduleInputs {
  /** status.lastScheduleTime, else the creationTimestamp, on the CronJob clock. */
  earliest: number;
  startingDeadlineSeconds?: number | undefined;
}

export interface MostRecent {
  earliest: number;
  mostRecent?: number;
  tooManyMissed: boolean;
}

export function mostRecentScheduleTime(
  schedule: CronSchedule,
  inputs: ScheduleInputs,
  now: number,
  includeStartingDeadline: boolean,
): MostRecent {
  let earliest = inputs.earliest;
  if (includeStartingDeadline && typeof inputs.startingDeadlineSeconds === 'number') {
    earliest = Math.max(earliest, now - inputs.startingDeadlineSeconds * 1000);
  }
  const latest = schedule.latest(new Date(earliest), new Date(now));
  if (!latest) return { earliest, tooManyMissed: false };
  // Count the missed activations only as far as "too many": a bounded walk.
  let missed = 0;
  for (let t = schedule.next(new Date(earliest)); t.getTime() <= now && missed <= MANY_MISSED; missed++)
    t = schedule.next(t);
  return { earliest, mostRecent: latest.getTime(), tooManyMissed: missed > MANY_MISSED };
}

/** Real-clock-free: the CronJob-clock ms from now to the next activation (plus the delta). */
export function nextScheduleTimeDuration(
  schedule: CronSchedule,
  inputs: ScheduleInputs,
  now: number,
): number {
  const { earliest, mostRecent } = mostRecentScheduleTime(schedule, inputs, now, false);
  const from = mostRecent ?? earliest;
  return schedule.next(new Date(from)).getTime() + NEXT_SCHEDULE_DELTA_MS - now;
}
