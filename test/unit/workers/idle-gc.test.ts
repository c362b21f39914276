/** The idle collector (src/workers/idle-gc.ts): one full collection per quiet period after jobs, never while one runs. */
import { describe, expect, it } from 'vitest';
import { IdleCollector } from '../../../src/workers/idle-gc.ts';
import { stays, until } from '../../helpers/wait.ts';

const IDLE_MS = 40;

function collector(active: { count: number }, idleMs = IDLE_MS) {
  let collected = 0;
  const c = new IdleCollector({
    idleMs,
    activeCount: () => active.count,
    collect: () => {
      collected++;
    },
  });
  return { c, collected: () => collected };
}

describe('IdleCollector', () => {
  it('collects once after a burst of job ends, once the quiet period has passed', async () => {
    const { c, collected } = collector({ count: 0 });
    for (let i = 0; i < 5; i++) c.jobEnded();
    await until(() => collected() === 1, 'the collection after the burst');
    // Idle with no job ending: nothing more to return, no second collection.
    await stays(() => collected() === 1, IDLE_MS * 4, 'one collection only, with no job since');
    c.jobEnded();
    await until(() => collected() === 2, 'the collection after the next job');
    c.stop();
  });

  it('waits while a job is running; the next job end starts the quiet period again', async () => {
    const active = { count: 1 };
    const { c, collected } = collector(active);
    c.jobEnded();
    await stays(() => collected() === 0, IDLE_MS * 4, 'no collection while a job runs');
    active.count = 0;
    c.jobEnded();
    await until(() => collected() === 1, 'the collection once nothing runs');
    c.stop();
  });

  it('is off with idleMs 0, and collects nothing after stop', async () => {
    const off = collector({ count: 0 }, 0);
    off.c.jobEnded();
    const stopped = collector({ count: 0 });
    stopped.c.jobEnded();
    stopped.c.stop();
    await stays(() => off.collected() + stopped.collected() === 0, IDLE_MS * 4, 'no collection');
  });

  it('runs V8’s full collection by default and reports it', async () => {
    const reports: { ms: number; heapUsedBefore: number; heapUsedAfter: number }[] = [];
    const c = new IdleCollector({ idleMs: 1, activeCount: () => 0, onCollected: (r) => reports.push(r) });
    // Garbage for it to return: ~40 MB of short-lived arrays, dropped at once.
    let junk: number[][] | undefined = Array.from({ length: 200 }, () => new Array(25_000).fill(1));
    expect(junk.length).toBe(200);
    junk = undefined;
    c.jobEnded();
    const [report] = await until(() => (reports.length ? reports : undefined), 'the default collection');
    expect(c.collections).toBe(1);
    expect(report!.heapUsedAfter).toBeLessThan(report!.heapUsedBefore);
    c.stop();
  });
});
