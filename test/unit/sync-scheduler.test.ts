/**
 * The sync scheduler's timing on a manual clock and an in-memory interval key: exact tick counts
 * and times, with no Redis and no real time passing. (test/integration/scheduler.test.ts runs
 * schedulers against a real redis-server and the real key script.)
 */
import { describe, expect, it } from 'vitest';
import {
  ERROR_RETRY_MS,
  type SchedulerTick,
  SyncScheduler,
} from '../../src/producers/scheduler/sync-scheduler.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { MemoryIntervalKeys } from '../helpers/memory-interval-lock.ts';

const INTERVAL_MS = 300;

/** Schedulers sharing one clock, one key and one (fake) queue. */
function fleet() {
  const clock = new ManualClock(1_000_000);
  const keys = new MemoryIntervalKeys(clock);
  const enqueued: { id: string; by: string; at: number }[] = [];
  let refuse = 0;
  let gate: Promise<void> | undefined;
  const jobs = {
    enqueue: async (_type: string, _payload: unknown, by: string) => {
      if (gate) await gate;
      if (refuse > 0) {
        refuse -= 1;
        throw new Error('enqueue refused');
      }
      const id = `fleet.${enqueued.length + 1}`;
      enqueued.push({ id, by, at: clock.now() });
      return { id };
    },
  } as unknown as ConstructorParameters<typeof SyncScheduler>[0]['jobs'];
  const scheduler = (id: string, intervalMs = INTERVAL_MS) => {
    const s = new SyncScheduler({ lock: keys.for(id), jobs, intervalMs, id, clock });
    const ticks: SchedulerTick[] = [];
    s.on('tick', (t) => ticks.push(t));
    return { scheduler: s, ticks };
  };
  return {
    clock,
    keys,
    enqueued,
    scheduler,
    refuseNext: (n: number) => {
      refuse = n;
    },
    /** The next enqueues wait until the returned function is called (a tick in flight). */
    holdEnqueues: () => {
      let open: () => void = () => undefined;
      gate = new Promise<void>((resolve) => {
        open = () => {
          gate = undefined;
          resolve();
        };
      });
      return open;
    },
  };
}

const since = (t0: number, ticks: SchedulerTick[]) => ticks.map((t) => t.at - t0);

describe('sync scheduler timing (manual clock)', () => {
  it('two schedulers enqueue exactly one sync per interval between them', async () => {
    const f = fleet();
    const t0 = f.clock.now();
    const a = f.scheduler('pair-a');
    const b = f.scheduler('pair-b');
    a.scheduler.start();
    b.scheduler.start();
    await f.clock.advance(2_000);

    // 0, 300, …, 1800 ms: seven intervals began within 2 s, one sync each.
    expect(f.enqueued.map((e) => e.at - t0)).toEqual([0, 300, 600, 900, 1200, 1500, 1800]);
    expect(f.enqueued.map((e) => e.id)).toEqual(['1', '2', '3', '4', '5', '6', '7'].map((n) => `fleet.${n}`));
    // The first to tick holds each new interval the moment the last one ends; the other stands back.
    expect(a.ticks.map((t) => t.outcome)).toEqual(Array(7).fill('enqueued'));
    expect(new Set(f.enqueued.map((e) => e.by))).toEqual(new Set(['scheduler:pair-a']));
    expect(b.ticks.map((t) => t.outcome)).toEqual(Array(7).fill('skipped'));
    // The one standing back waits out the key plus 1–30 ms of jitter, never polling in between.
    for (const [i, at] of since(t0, b.ticks).entries()) {
      if (i === 0) expect(at).toBe(0);
      else {
        expect(at).toBeGreaterThan(i * INTERVAL_MS);
        expect(at).toBeLessThanOrEqual(i * INTERVAL_MS + 30);
      }
    }
    expect(a.ticks.every((t) => t.nextInMs === INTERVAL_MS)).toBe(true);

    await Promise.all([a.scheduler.stop(), b.scheduler.stop()]);
  });

  it('another scheduler takes over within the jitter of the key expiring when the holder stops', async () => {
    const f = fleet();
    const t0 = f.clock.now();
    const a = f.scheduler('leader');
    const b = f.scheduler('standby');
    a.scheduler.start();
    b.scheduler.start();
    await f.clock.advance(1_000); // a enqueued at 0, 300, 600, 900
    await a.scheduler.stop();
    await f.clock.advance(1_000);

    const at = f.enqueued.map((e) => [e.by, e.at - t0] as const);
    expect(at.slice(0, 4)).toEqual([0, 300, 600, 900].map((ms) => ['scheduler:leader', ms]));
    // The key a took at 900 expires at 1200; b's next tick is then, plus its jitter.
    const [by, first] = at[4]!;
    expect(by).toBe('scheduler:standby');
    expect(first).toBeGreaterThan(1_200);
    expect(first).toBeLessThanOrEqual(1_230);
    // From then on b holds every interval: exactly two more before 2 s.
    expect(at.slice(5)).toEqual([
      ['scheduler:standby', first + INTERVAL_MS],
      ['scheduler:standby', first + 2 * INTERVAL_MS],
    ]);
    expect(a.ticks).toHaveLength(4);

    await b.scheduler.stop();
  });

  it('stops ticking on stop(), leaving no timer behind', async () => {
    const f = fleet();
    const one = f.scheduler('stopper');
    one.scheduler.start();
    await f.clock.advance(INTERVAL_MS * 2); // ticks at 0, 300, 600
    expect(one.ticks.map((t) => t.outcome)).toEqual(['enqueued', 'enqueued', 'enqueued']);
    await one.scheduler.stop();
    expect(one.scheduler.running).toBe(false);
    expect(f.clock.pending).toBe(0);

    await f.clock.advance(INTERVAL_MS * 10);
    expect(one.ticks).toHaveLength(3);
    expect(f.enqueued).toHaveLength(3);
    // Nobody renews the key any more: it expired an interval after the last take.
    expect(f.keys.holder()).toBeUndefined();
  });

  it('stop() during a tick waits for it, and nothing is scheduled after it', async () => {
    const f = fleet();
    const one = f.scheduler('busy');
    const open = f.holdEnqueues();
    one.scheduler.start();
    await f.clock.advance(0); // the first tick is now waiting on its enqueue
    expect(one.ticks).toEqual([]);
    let stopped = false;
    const stopping = one.scheduler.stop().then(() => {
      stopped = true;
    });
    await f.clock.advance(0);
    expect(stopped).toBe(false);
    open();
    await stopping;
    expect(one.ticks.map((t) => t.outcome)).toEqual(['enqueued']);
    expect(f.clock.pending).toBe(0);
    await f.clock.advance(INTERVAL_MS * 10);
    expect(one.ticks).toHaveLength(1);
  });

  it('does nothing when the interval is 0', async () => {
    const f = fleet();
    const off = f.scheduler('off', 0);
    off.scheduler.start();
    expect(off.scheduler.enabled).toBe(false);
    expect(off.scheduler.running).toBe(false);
    expect(f.clock.pending).toBe(0);
    await f.clock.advance(INTERVAL_MS * 10);
    expect(off.ticks).toEqual([]);
    expect(f.keys.holder()).toBeUndefined();
  });

  it('retries a failed enqueue after min(interval, 5 s), freeing the interval each time', async () => {
    const f = fleet();
    const t0 = f.clock.now();
    const slow = f.scheduler('slow', 60_000);
    f.refuseNext(2);
    slow.scheduler.start();
    await f.clock.advance(0);
    expect(slow.ticks).toMatchObject([{ outcome: 'error', consecutiveErrors: 1, nextInMs: ERROR_RETRY_MS }]);
    expect(f.keys.holder()).toBeUndefined();

    await f.clock.advance(ERROR_RETRY_MS * 2);
    expect(slow.ticks.map((t) => [t.outcome, t.at - t0])).toEqual([
      ['error', 0],
      ['error', ERROR_RETRY_MS],
      ['enqueued', ERROR_RETRY_MS * 2],
    ]);
    expect(slow.ticks[1]).toMatchObject({ consecutiveErrors: 2 });
    expect(f.keys.holder()).toBe('slow');

    // Then a full interval until the next one.
    await f.clock.advance(60_000 - 1);
    expect(slow.ticks).toHaveLength(3);
    await f.clock.advance(1);
    expect(slow.ticks.map((t) => t.outcome)).toEqual(['error', 'error', 'enqueued', 'enqueued']);

    // With a short interval the retry comes after one interval, not 5 s.
    const quick = f.scheduler('quick', INTERVAL_MS);
    f.refuseNext(1);
    await slow.scheduler.stop();
    await f.clock.advance(60_000); // let slow's key expire
    const t1 = f.clock.now();
    quick.scheduler.start();
    await f.clock.advance(INTERVAL_MS);
    expect(quick.ticks.map((t) => [t.outcome, t.at - t1])).toEqual([
      ['error', 0],
      ['enqueued', INTERVAL_MS],
    ]);
    await quick.scheduler.stop();
  });
});
