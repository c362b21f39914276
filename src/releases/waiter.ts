/**
 * Waiting for applied workloads to become ready, from the informer caches: the watch feeds the
 * cache and this reads it every `pollMs` (memory only, no API request), so a 5-minute wait costs
 * no more requests than a 1-second one.
 */
import type { ObjectRef } from '../storage/types.ts';
import type { LiveObjects } from './live-objects.ts';
import { claimReadiness, deploymentReadiness, type Readiness } from './rollout.ts';

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
}

export async function waitForTargets(
  live: LiveObjects,
  targets: readonly WaitTarget[],
  options: { timeoutMs: number; signal?: AbortSignal; pollMs?: number; onProgress?(p: WaitProgress): void },
): Promise<WaitResult> {
  const deadline = Date.now() + options.timeoutMs;
  let lastMessage = '';
  for (;;) {
    if (options.signal?.aborted) return { state: 'aborted', reason: options.signal.reason };
    // Through LiveObjects each round: a memory read, and it keeps the caches marked as in use.
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
    const waiting = states.filter((s) => s.state === 'waiting');
    if (waiting.length === 0) return { state: 'ready' };
    const message = waiting.map((s) => s.message).join(' ');
    if (message !== lastMessage) {
      lastMessage = message;
      options.onProgress?.({ message, fraction: (states.length - waiting.length) / states.length });
    }
    if (Date.now() >= deadline) return { state: 'timeout', pending: waiting.map((s) => s.message) };
    await sleep(Math.min(options.pollMs ?? 100, Math.max(1, deadline - Date.now())), options.signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
