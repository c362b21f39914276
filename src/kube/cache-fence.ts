/**
 * Cache fences: how a job on one worker process waits until its informer caches hold what the
 * job before it in the same lane wrote from another process (docs/ordering.md, "Cache fences").
 *
 * Lane order makes jobs of an app run one after the other, but not on one process: each worker
 * reads through its own caches, which see another process's writes only when their watches
 * deliver them. Without a fence, a job could build on a spec or history its cache does not have
 * yet and undo the job before it (found by the chaos suite).
 *
 * A fence names, per cache (its collection path and selector), the resourceVersion of the latest
 * write made into it. A watch delivers a collection's events in resourceVersion order, so a cache
 * that has seen an event at or past that resourceVersion holds every change up to it. Comparing
 * resourceVersions as numbers is what the read-your-writes overlay (informer-cache.ts) already
 * does; it holds for kube-apiserver, whose resourceVersions are etcd revisions, and for kube-sim.
 *
 * A cache this process has not started needs no wait: its first list is a fresh read.
 */

import { TransientError } from '../core/errors.ts';

/** Per cache id, `[resourceVersion, ms when written]`. */
export type Fence = Record<string, [rv: number, writtenAt: number]>;

/** What a fence needs of a cache (InformerCache implements it). */
export interface FencedCache {
  /** Collection path and label selector: the same for the same cache in every process. */
  readonly fenceId: string;
  /** The latest write this process made into the cache (its resourceVersion and when). */
  lastWrite(): { rv: number; at: number } | undefined;
  /** The highest resourceVersion the cache has received (list or watch). */
  observedRv(): number;
  /** Deletions this process made whose DELETED event the cache has not received yet. */
  unseenDeletions(): number;
  onChange(listener: () => void): () => void;
}

/**
 * Entries older than this are dropped from a fence carried along a lane: a watch that far behind
 * has restarted and listed afresh since (its restart backoff tops out at 5 s), and the fence of an
 * app that sees one job a day should not grow forever.
 */
export const FENCE_HORIZON_MS = 5 * 60_000;

/**
 * How long a job's end waits for the DELETED events of its own deletions (settleDeletions); past
 * it (a garbage collector that is slow to delete dependents) the fence goes without them.
 */
export const DELETION_SETTLE_MS = 3_000;

/** How long a job waits for its caches to reach the fence before its attempt fails as transient. */
export const FENCE_WAIT_MS = 10_000;

/** Transient: the attempt is retried with backoff, by when the watch has usually caught up. */
export class CacheBehindFenceError extends TransientError {
  constructor(readonly behind: string[]) {
    super(
      `this worker's caches have not caught up with the app's previous job within ${FENCE_WAIT_MS / 1000} s ` +
        `(behind: ${behind.join(', ')}); the attempt is retried`,
    );
  }
}

/** The caches of one cluster connection, for fences. */
export class CacheFences {
  private readonly caches = new Set<FencedCache>();

  register(cache: FencedCache): () => void {
    this.caches.add(cache);
    return () => this.caches.delete(cache);
  }

  /**
   * The fence a job leaves: every cache this process wrote into since `sinceMs` (a concurrent
   * job's writes may be in it too, which only makes the next job wait a little longer), merged
   * with the fence the job started from, keeping the higher resourceVersion of each cache.
   */
  fenceSince(sinceMs: number, carried: Fence | undefined, now = Date.now()): Fence {
    const fence: Fence = {};
    for (const [id, entry] of Object.entries(carried ?? {})) {
      if (now - entry[1] <= FENCE_HORIZON_MS) fence[id] = entry;
    }
    for (const cache of this.caches) {
      const write = cache.lastWrite();
      if (!write || write.at < sinceMs) continue;
      const held = fence[cache.fenceId];
      if (!held || held[0] < write.rv) fence[cache.fenceId] = [write.rv, write.at];
    }
    return fence;
  }

  /**
   * Resolves once this process's caches have received the DELETED events of its own deletions
   * (or after `timeoutMs`, whichever comes first): a deletion's resourceVersion is known only from
   * its event, and the fence a job leaves must name it. Immediate when there is none.
   */
  async settleDeletions(timeoutMs = DELETION_SETTLE_MS): Promise<void> {
    const unseen = () => [...this.caches].some((c) => c.unseenDeletions() > 0);
    if (!unseen()) return;
    await new Promise<void>((resolve) => {
      const unsubscribes: (() => void)[] = [];
      const done = () => {
        clearTimeout(timer);
        for (const unsubscribe of unsubscribes) unsubscribe();
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      for (const cache of this.caches) unsubscribes.push(cache.onChange(() => !unseen() && done()));
      if (!unseen()) done();
    });
  }

  /** Ids of this process's caches that have not reached the fence yet. */
  behind(fence: Fence): string[] {
    const behind: string[] = [];
    for (const cache of this.caches) {
      const entry = fence[cache.fenceId];
      if (entry && cache.observedRv() < entry[0]) behind.push(cache.fenceId);
    }
    return behind;
  }

  /**
   * Resolves once every cache named in `fence` has reached it; rejects with CacheBehindFenceError
   * after `timeoutMs`. Re-checked on each watch event of the caches still behind.
   */
  async await(fence: Fence, timeoutMs = FENCE_WAIT_MS, signal?: AbortSignal): Promise<void> {
    if (this.behind(fence).length === 0) return;
    await new Promise<void>((resolve, reject) => {
      const unsubscribes: (() => void)[] = [];
      const done = (err?: Error) => {
        clearTimeout(timer);
        for (const unsubscribe of unsubscribes) unsubscribe();
        signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve();
      };
      const check = () => {
        if (this.behind(fence).length === 0) done();
      };
      const onAbort = () => done(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      const timer = setTimeout(() => done(new CacheBehindFenceError(this.behind(fence))), timeoutMs);
      for (const cache of this.caches) if (fence[cache.fenceId]) unsubscribes.push(cache.onChange(check));
      signal?.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }
}

/** A fence as stored in Redis (JSON); an empty fence is not stored. */
export function encodeFence(fence: Fence): string | undefined {
  return Object.keys(fence).length > 0 ? JSON.stringify(fence) : undefined;
}

/** Reads stored fences (lane status, attempt records) and merges them; unreadable ones are skipped. */
export function mergeFences(stored: readonly (string | undefined)[]): Fence | undefined {
  let merged: Fence | undefined;
  for (const json of stored) {
    if (!json) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      continue;
    }
    if (!parsed || typeof parsed !== 'object') continue;
    for (const [id, entry] of Object.entries(parsed as Record<string, unknown>)) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'number' || typeof entry[1] !== 'number') continue;
      merged ??= {};
      const held = merged[id];
      if (!held || held[0] < entry[0]) merged[id] = [entry[0], entry[1]];
    }
  }
  return merged;
}
