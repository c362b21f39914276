/**
 * The daily prune: the sync scheduler's loop given `job: 'prune'`, on its own interval key, on a
 * manual clock. Two processes, each running a sync and a prune scheduler, enqueue one prune per
 * day between them, and the syncs keep their own interval.
 */
import { describe, expect, it } from 'vitest';
import { type ScheduledJob, SyncScheduler } from '../../src/producers/scheduler/sync-scheduler.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { MemoryIntervalKeys } from '../helpers/memory-interval-lock.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('prune scheduler (manual clock)', () => {
  it('enqueues one prune of every app per day across two processes, beside hourly syncs', async () => {
    const clock = new ManualClock(1_000_000);
    const t0 = clock.now();
    // One key per job type, as Redis has `{longshore}:scheduler:sync` and `…:prune`.
    const keys = { sync: new MemoryIntervalKeys(clock), prune: new MemoryIntervalKeys(clock) };
    const enqueued: { type: string; payload: unknown; by: string; at: number }[] = [];
    const jobs = {
      enqueue: async (type: string, payload: unknown, by: string) => {
        enqueued.push({ type, payload, by, at: clock.now() - t0 });
        return { id: `fleet.${enqueued.length}` };
      },
    } as unknown as ConstructorParameters<typeof SyncScheduler>[0]['jobs'];
    const schedulers: SyncScheduler[] = [];
    for (const proc of ['a', 'b'])
      for (const [job, intervalMs] of [
        ['sync', HOUR],
        ['prune', DAY],
      ] as [ScheduledJob, number][])
        schedulers.push(
          new SyncScheduler({ lock: keys[job].for(proc), jobs, intervalMs, id: proc, clock, job }),
        );
    for (const s of schedulers) s.start();
    await clock.advance(3 * DAY - 1);

    const prunes = enqueued.filter((e) => e.type === 'prune');
    expect(prunes.map((e) => e.at)).toEqual([0, DAY, 2 * DAY]);
    expect(prunes.every((e) => JSON.stringify(e.payload) === '{}')).toBe(true);
    expect(enqueued.filter((e) => e.type === 'sync')).toHaveLength(72);
    expect(enqueued.every((e) => e.type === 'sync' || e.type === 'prune')).toBe(true);

    await Promise.all(schedulers.map((s) => s.stop()));
    expect(clock.pending).toBe(0);
  });

  it('is off at interval 0', async () => {
    const clock = new ManualClock(0);
    const keys = new MemoryIntervalKeys(clock);
    const jobs = { enqueue: async () => ({ id: 'x' }) } as unknown as ConstructorParameters<
      typeof SyncScheduler
    >[0]['jobs'];
    const s = new SyncScheduler({ lock: keys.for('a'), jobs, intervalMs: 0, clock, job: 'prune' });
    s.start();
    expect(s.running).toBe(false);
    expect(clock.pending).toBe(0);
  });
});
