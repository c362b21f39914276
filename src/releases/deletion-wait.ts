/**
 * Waits until objects deleted in the foreground are gone from the API server: such an object stays
 * (with a deletionTimestamp and the `foregroundDeletion` finalizer) until the garbage collector
 * removed its dependents — a Deployment's ReplicaSets and their pods, a CronJob's Jobs. Read past
 * the informer caches (the writer already dropped the object from them), one GET per object and
 * round, so this is for destroys, not for every deploy.
 */
import { TransientError } from '../core/errors.ts';
import type { ObjectRef } from '../storage/types.ts';
import { describeRef } from './objects.ts';
import type { ReleaseCluster } from './release-cluster.ts';

/** Rounds are no closer than this: each one costs a GET per object still there. */
const MIN_POLL_MS = 250;

export async function waitUntilDeleted(
  cluster: Pick<ReleaseCluster, 'fromServer'>,
  refs: readonly ObjectRef[],
  options: { timeoutMs: number; pollMs: number; signal?: AbortSignal; onWaiting?(refs: ObjectRef[]): void },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let waiting = [...refs];
  let reported = '';
  for (;;) {
    options.signal?.throwIfAborted();
    const live = await Promise.all(waiting.map((ref) => cluster.fromServer(ref, options.signal)));
    waiting = waiting.filter((_, i) => live[i] !== undefined);
    if (waiting.length === 0) return;
    const names = waiting.map(describeRef).join(', ');
    if (names !== reported) {
      reported = names;
      options.onWaiting?.(waiting);
    }
    if (Date.now() >= deadline)
      // A retry deletes again (a no-op on objects already being deleted) and waits again.
      throw new TransientError(`still being deleted after ${options.timeoutMs / 1000} s: ${names}`);
    await sleep(Math.max(options.pollMs, MIN_POLL_MS), options.signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
