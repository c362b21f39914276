/**
 * Waiting for applied workloads to become ready, from the informer caches: the watch feeds the
 * cache, and this re-reads it as soon as a watch event arrives for one of the targets' kinds, and
 * at least every `pollMs` (memory only, no API request). A 5-minute wait costs no more requests
 * than a 1-second one, and a finished rollout is noticed when its status arrives, not a poll later.
 */
import type { ObjectRef } from '../storage/types.ts';
import type { DeploymentRollout } from './events.ts';
import type { LiveReader } from './release-cluster.ts';
import { claimReadiness, deploymentCounts, deploymentReadiness, type Readiness } from './rollout.ts';

export interface WaitTarget {
  ref: ObjectRef;
  check: 'rollout' | 'claim';
}

export type WaitResult =
  | { state: 'ready' }
  | { state: 'failed'; ref: ObjectRef; message: string }
  | { state: 'timeout'; pending: string[] }
  | { state: 'aborted'; reason: unknown };

export interface WaitProgress {
  message: string;
  /** Ready targets out of all, 0–1. */
  fraction: number;
  /** The counts of every Deployment target that exists (empty when there is none). */
  rollouts: DeploymentRollout[];
}

export async function waitForTargets(
  live: LiveReader,
  targets: readonly WaitTarget[],
  options: { timeoutMs: number; signal?: AbortSignal; pollMs?: number; onProgress?(p: WaitProgress): void },
): Promise<WaitResult> {
  const deadline = Date.now() + options.timeoutMs;
  let lastMessage = '';
  let lastCounts = '';
  const wake = new Wakeup();
  const unsubscribe = await live.onChange(
    targets.map((t) => t.ref),
    () => wake.poke(),
    options.signal,
  );
  try {
    return await loop();
  } finally {
    unsubscribe();
  }

  async function loop(): Promise<WaitResult> {
    for (;;) {
      if (options.signal?.aborted) return { state: 'aborted', reason: options.signal.reason };
      // Through the LiveReader each round: a memory read, and it keeps the caches marked as in use.
      const objects = await Promise.all(targets.map((t) => live.get(t.ref, options.signal)));
      const states = targets.map((target, i): Readiness => {
        const object = objects[i];
        if (!object)
          return {
            state: 'waiting',
            message: `Waiting for ${target.ref.kind} "${target.ref.name}" to exist...`,
          };
        return target.check === 'rollout' ? deploymentReadiness(object) : claimReadiness(object);
      });
      const failed = states.findIndex((s) => s.state === 'failed');
      if (failed !== -1)
        return { state: 'failed', ref: targets[failed]!.ref, message: states[failed]!.message };
      const rollouts = targets.flatMap((target, i): DeploymentRollout[] => {
        const object = objects[i];
        if (target.check !== 'rollout' || !object) return [];
        return [{ name: target.ref.name, namespace: target.ref.namespace, ...deploymentCounts(object) }];
      });
      const counts = JSON.stringify(rollouts);
      const waiting = states.filter((s) => s.state === 'waiting');
      if (waiting.length === 0) {
        // The counts as the rollout ended, for whoever shows them (a live line ends as it reads).
        if (rollouts.length > 0 && counts !== lastCounts)
          options.onProgress?.({ message: `${targets.length} object(s) ready`, fraction: 1, rollouts });
        return { state: 'ready' };
      }
      const message = waiting.map((s) => s.message).join(' ');
      if (message !== lastMessage || counts !== lastCounts) {
        lastMessage = message;
        lastCounts = counts;
        options.onProgress?.({
          message,
          fraction: (states.length - waiting.length) / states.length,
          rollouts,
        });
      }
      if (Date.now() >= deadline) return { state: 'timeout', pending: waiting.map((s) => s.message) };
      await wake.sleep(Math.min(options.pollMs ?? 100, Math.max(1, deadline - Date.now())), options.signal);
    }
  }
}

/** A sleep that ends early on `poke()` (a watch event) or an abort; a poke while awake is kept for the next sleep. */
class Wakeup {
  private pending = false;
  private wakeNow?: () => void;

  poke(): void {
    if (this.wakeNow) this.wakeNow();
    else this.pending = true;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const wake = () => done();
      this.wakeNow = wake;
      signal?.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
    }).finally(() => {
      this.wakeNow = undefined;
    });
  }
}
