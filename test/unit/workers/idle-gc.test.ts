/** The idle collector (src/workers/idle-gc.ts): one full collection per quiet period after jobs, never while one runs. */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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

  it('compacts: the old generation gives back the pages a fragmented heap leaves', async () => {
    const oldSpace = () => getHeapSpaceStatistics().find((sp) => sp.space_name === 'old_space')!.space_size;
    setFlagsFromString('--expose-gc');
    const plainGc = runInNewContext('gc') as () => void;
    // ~1.5 million small objects, two of every three dropped: survivors spread over every page.
    let all: { a: number; b: string }[] | undefined = Array.from({ length: 1_500_000 }, (_, i) => ({
      a: i,
      b: `x${i}`,
    }));
    const kept = all.filter((_, i) => i % 3 === 0);
    all = undefined;
    plainGc();
    plainGc();
    // A plain full collection frees the objects but keeps most of their pages.
    const plain = oldSpace();
    const c = new IdleCollector({ idleMs: 1, activeCount: () => 0 });
    c.jobEnded();
    await until(() => c.collections > 0, 'the idle collection');
    expect(oldSpace()).toBeLessThan(plain * 0.8);
    expect(kept.length).toBe(500_000);
    c.stop();
  });
});
