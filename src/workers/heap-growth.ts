/**
 * The worker's heap growth factor. V8 lets the old generation grow to between 1.1 and 4 times
 * what survived the last full collection before it runs the next one, choosing the factor from
 * how fast it collects: a worker that churns through a sync of every app (each reconcile reads
 * the app's caches and builds its plan, all garbage a moment later) then sits at 2-3 times its
 * live objects. Measured with 1,000 apps × 10 revisions: ~250 MB of live objects, 650-900 MB RSS
 * right after a full sync (docs/benchmarks.md). A fixed small factor trades more frequent full
 * collections, which a worker waiting on the API server can afford, for an RSS that follows what
 * the caches hold, so a memory limit can be set from it.
 */
import { setFlagsFromString } from 'node:v8';

/** Sets V8's heap growing factor to 1 + percent/100 (0: leaves V8's dynamic factor). */
export function limitHeapGrowth(percent: number): void {
  if (percent <= 0) return;
  // Read by V8's heap controller at every full collection, so it applies from the next one on.
  setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
}
