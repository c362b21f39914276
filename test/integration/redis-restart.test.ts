/**
 * Redis killed (SIGKILL) and restarted while jobs are queued and running: no job is lost, the
 * worker reconnects by itself, and per-app order still holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestFleet, type TestFleet } from '../helpers/fleet.ts';
import { holdFor, until } from '../helpers/wait.ts';

describe('Redis restart with appendonly on', () => {
  let fleet: TestFleet;

  beforeAll(async () => {
    fleet = await startTestFleet();
    await fleet.startWorker({}, 3);
  });

  afterAll(() => fleet.stop());

  it('loses no job and keeps order', async () => {
    const apps = ['one', 'two', 'three'];
    const enqueued: { id: string; app: string; index: number }[] = [];
    for (let i = 0; i < 12; i++) {
      for (const app of apps) {
        const job = await fleet.jobs.enqueue('scale', { app, processes: { web: i, sleepms: 80 } }, 'test');
        enqueued.push({ id: job.id, app, index: i });
      }
    }
    await fleet.waitForEvent((e) => e.phase === 'end', 'the first jobs to run');

    await fleet.redis.kill();
    await holdFor(1_000, 'Redis down while jobs run: the worker must ride out the outage');
    await fleet.redis.start();

    const completed = await until(
      async () => {
        const ends = (await fleet.events()).filter((e) => e.phase === 'end');
        return new Set(ends.map((e) => e.jobId)).size === enqueued.length ? ends : undefined;
      },
      'every job to run after the restart',
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(new Set(completed.map((e) => e.jobId))).toEqual(new Set(enqueued.map((e) => e.id)));
    await until(
      async () =>
        (await fleet.jobs.queue.getJobCounts('completed')).completed === enqueued.length || undefined,
      'BullMQ to record every completion',
    );

    const events = await fleet.events();
    for (const app of apps) {
      const firstStarts: number[] = [];
      for (const e of events.filter((x) => x.app === app && x.phase === 'start').sort((a, b) => a.n - b.n)) {
        if (!firstStarts.includes(e.index as number)) firstStarts.push(e.index as number);
      }
      expect(firstStarts).toEqual([...Array(12).keys()]);
    }
    // The same worker process did it all: it reconnected instead of dying.
    expect(fleet.workers[0]!.child.exitCode).toBeNull();
    expect(new Set(events.map((e) => e.pid)).size).toBe(1);
  });
});
