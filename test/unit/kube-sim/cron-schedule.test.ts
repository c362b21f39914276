/**
 * The CronJob controller's schedule arithmetic (cron-schedule.ts, cron-schedule-times.ts after
 * upstream pkg/controller/cronjob/utils.go) and its sped-up clock (cron-clock.ts).
 */
import { describe, expect, it } from 'vitest';
import { CronClock } from '../../../infra/kube-sim/controllers/cron-clock.ts';
import {
  parseCronSchedule,
  UnparseableScheduleError,
} from '../../../infra/kube-sim/controllers/cron-schedule.ts';
import {
  mostRecentScheduleTime,
  NEXT_SCHEDULE_DELTA_MS,
  nextScheduleTimeDuration,
} from '../../../infra/kube-sim/controllers/cron-schedule-times.ts';

const at = (iso: string) => Date.parse(iso);

describe('parseCronSchedule', () => {
  it('finds the next activation strictly after a time, in the schedule’s zone', () => {
    const every = parseCronSchedule('*/1 * * * *', undefined);
    expect(every.next(new Date('2026-01-01T00:01:00Z')).toISOString()).toBe('2026-01-01T00:02:00.000Z');
    expect(every.next(new Date('2026-01-01T00:00:59.500Z')).toISOString()).toBe('2026-01-01T00:01:00.000Z');
    const india = parseCronSchedule('0 9 * * *', 'Asia/Kolkata');
    expect(india.next(new Date('2026-01-01T00:00:00Z')).toISOString()).toBe('2026-01-01T03:30:00.000Z');
    const prefixed = parseCronSchedule('CRON_TZ=Asia/Kolkata 0 9 * * *', undefined);
    expect(prefixed.next(new Date('2026-01-01T00:00:00Z')).toISOString()).toBe('2026-01-01T03:30:00.000Z');
  });

  it('takes @every as a constant delay and a day no month has as never', () => {
    const every = parseCronSchedule('@every 1m30s', undefined);
    expect(every.next(new Date('2026-01-01T00:00:00.400Z')).toISOString()).toBe('2026-01-01T00:01:30.000Z');
    expect(
      every.latest(new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:05:00Z'))?.toISOString(),
    ).toBe('2026-01-01T00:04:30.000Z');
    const never = parseCronSchedule('0 0 30 2 *', undefined);
    expect(never.latest(new Date(0), new Date('2030-01-01T00:00:00Z'))).toBeUndefined();
    expect(() => parseCronSchedule('* * * * *', 'Mars/Olympus')).toThrow(UnparseableScheduleError);
  });
});

describe('mostRecentScheduleTime', () => {
  const sched = parseCronSchedule('*/1 * * * *', undefined);

  it('is the newest missed activation since the earliest time', () => {
    const found = mostRecentScheduleTime(
      sched,
      { earliest: at('2026-01-01T00:00:30Z') },
      at('2026-01-01T00:03:10Z'),
      true,
    );
    expect(found.mostRecent).toBe(at('2026-01-01T00:03:00Z'));
    expect(found.tooManyMissed).toBe(false);
    expect(
      mostRecentScheduleTime(
        sched,
        { earliest: at('2026-01-01T00:00:30Z') },
        at('2026-01-01T00:00:50Z'),
        true,
      ).mostRecent,
    ).toBeUndefined();
  });

  it('looks no further back than startingDeadlineSeconds, and counts too many misses', () => {
    const inputs = { earliest: at('2026-01-01T00:00:00Z'), startingDeadlineSeconds: 5 };
    expect(
      mostRecentScheduleTime(sched, inputs, at('2026-01-01T00:03:10Z'), true).mostRecent,
    ).toBeUndefined();
    expect(mostRecentScheduleTime(sched, inputs, at('2026-01-01T00:03:04Z'), true).mostRecent).toBe(
      at('2026-01-01T00:03:00Z'),
    );
    expect(
      mostRecentScheduleTime(sched, { earliest: 0 }, at('2026-01-01T00:00:00Z'), true).tooManyMissed,
    ).toBe(true);
  });

  it('requeues for just after the next activation', () => {
    const now = at('2026-01-01T00:03:10Z');
    expect(nextScheduleTimeDuration(sched, { earliest: at('2026-01-01T00:00:30Z') }, now)).toBe(
      50_000 + NEXT_SCHEDULE_DELTA_MS,
    );
  });
});

describe('CronClock', () => {
  it('runs timeScale times as fast and re-anchors when the scale changes', () => {
    let real = 1_000_000;
    const settings = { timeScale: 60 };
    const clock = new CronClock(settings, () => real);
    real += 1000;
    expect(clock.now()).toBe(1_000_000 + 60_000);
    settings.timeScale = 1;
    // The new scale counts from the clock's next read.
    expect(clock.now()).toBe(1_000_000 + 60_000);
    real += 1000;
    expect(clock.now()).toBe(1_000_000 + 61_000);
    expect(clock.simAt(real - 500)).toBe(1_000_000 + 60_500);
  });
});
