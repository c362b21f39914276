import { describe, expect, it } from 'vitest';
import {
  CacheBehindFenceError,
  CacheFences,
  encodeFence,
  FENCE_HORIZON_MS,
  type FencedCache,
  mergeFences,
} from '../../../src/kube/cache-fence.ts';

/** A cache whose received resourceVersion and last write the test sets. */
function fakeCache(fenceId: string) {
  const listeners = new Set<() => void>();
  const cache = {
    fenceId,
    observed: 0,
    write: undefined as { rv: number; at: number } | undefined,
    unseen: 0,
    lastWrite: () => cache.write,
    observedRv: () => cache.observed,
    unseenDeletions: () => cache.unseen,
    onChange(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    receive(rv: number) {
      cache.observed = rv;
      for (const l of listeners) l();
    },
    listeners,
  };
  return cache satisfies FencedCache;
}

describe('CacheFences', () => {
  it('leaves the writes made since the job started, merged with the fence it started from', () => {
    const fences = new CacheFences();
    const index = fakeCache('index');
    const app = fakeCache('app');
    const other = fakeCache('other');
    for (const c of [index, app, other]) fences.register(c);
    index.write = { rv: 50, at: 1_000 };
    app.write = { rv: 40, at: 900 }; // before the job started
    const fence = fences.fenceSince(950, { index: [60, 800], gone: [10, 800] }, 1_100);
    // The carried index entry is higher than this job's write: it stays.
    expect(fence).toEqual({ index: [60, 800], gone: [10, 800] });
    other.write = { rv: 70, at: 1_050 };
    expect(fences.fenceSince(950, undefined, 1_100)).toEqual({ index: [50, 1_000], other: [70, 1_050] });
  });

  it('drops carried entries older than the horizon', () => {
    const fences = new CacheFences();
    const now = 10 * FENCE_HORIZON_MS;
    const carried = {
      old: [5, now - FENCE_HORIZON_MS - 1] as [number, number],
      recent: [6, now - 1] as [number, number],
    };
    expect(fences.fenceSince(now, carried, now)).toEqual({ recent: [6, now - 1] });
  });

  it('waits only on caches of this process that are behind, until their watch reaches the fence', async () => {
    const fences = new CacheFences();
    const index = fakeCache('index');
    fences.register(index);
    index.observed = 10;
    // A cache this process has not started is not waited on: its first list is fresh.
    expect(fences.behind({ index: [10, 0], notStarted: [99, 0] })).toEqual([]);
    expect(fences.behind({ index: [12, 0] })).toEqual(['index']);
    let done = false;
    const waiting = fences.await({ index: [12, 0] }, 5_000).then(() => {
      done = true;
    });
    index.receive(11);
    await Promise.resolve();
    expect(done).toBe(false);
    index.receive(13);
    await waiting;
    expect(done).toBe(true);
    expect(index.listeners.size).toBe(0);
  });

  it('fails as transient when the cache does not catch up in time, naming it', async () => {
    const fences = new CacheFences();
    const index = fakeCache('index');
    fences.register(index);
    const err = await fences.await({ index: [5, 0] }, 20).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CacheBehindFenceError);
    expect((err as CacheBehindFenceError).behind).toEqual(['index']);
    expect((err as Error).message).toMatch(/have not caught up .* \(behind: index\); the attempt is retried/);
    expect(index.listeners.size).toBe(0);
  });

  it('stops waiting when the job is aborted', async () => {
    const fences = new CacheFences();
    const index = fakeCache('index');
    fences.register(index);
    const controller = new AbortController();
    const waiting = fences.await({ index: [5, 0] }, 5_000, controller.signal).catch((e: unknown) => e);
    controller.abort(new Error('cancelled by an operator'));
    expect(((await waiting) as Error).message).toBe('cancelled by an operator');
  });

  it('does not wait on a cache that was unregistered (stopped)', () => {
    const fences = new CacheFences();
    const unregister = fences.register(fakeCache('index'));
    unregister();
    expect(fences.behind({ index: [5, 0] })).toEqual([]);
  });
});

describe('settleDeletions', () => {
  it("waits until the DELETED events of the process's own deletions arrived, or for its limit", async () => {
    const fences = new CacheFences();
    const index = fakeCache('index');
    fences.register(index);
    await fences.settleDeletions(5_000); // none: at once
    index.unseen = 1;
    let settled = false;
    const settling = fences.settleDeletions(5_000).then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    index.unseen = 0;
    index.receive(20);
    await settling;
    expect(index.listeners.size).toBe(0);
    // An event that never comes (a garbage collector that is slow) holds the job's end only so long.
    index.unseen = 1;
    await fences.settleDeletions(20);
    expect(index.listeners.size).toBe(0);
  });
});

describe('stored fences', () => {
  it('round-trip, merge by the highest resourceVersion, and skip what cannot be read', () => {
    expect(encodeFence({})).toBeUndefined();
    const a = encodeFence({ index: [5, 1], app: [7, 2] });
    const b = encodeFence({ index: [9, 3] });
    expect(mergeFences([a, undefined, 'not json', '{"x":"bad"}', b])).toEqual({ index: [9, 3], app: [7, 2] });
    expect(mergeFences([undefined, '[]'])).toBeUndefined();
  });
});
