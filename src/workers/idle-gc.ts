/**
 * A full garbage collection once a worker has gone idle. V8 collects the old generation when it
 * reaches its limit (1.2× what survived the last collection: heap-growth.ts), and gives memory
 * back when its memory reducer judges the process idle — which a worker never quite is: its
 * informers, watches and BullMQ's polling keep allocating a little. So after a burst of jobs (a
 * full sync reads every app's caches and builds a plan per app, all garbage a moment later) a
 * worker sat at the burst's peak until the next one: measured with 1,000 apps × 10 revisions,
 * heap 275 MB committed for 150–170 MB in use, RSS ~390 MB right after a sync and still 10 s later
 * (docs/benchmarks.md). One collection when no job has run for `idleMs` returns the burst's
 * garbage and compacts what stays, so RSS follows what the caches hold; it costs one pause
 * (~100–200 ms at that size) while nothing is running, once per burst.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleCollection {
  /** How long the collection took. */
  ms: number;
  heapUsedBefore: number;
  heapUsedAfter: number;
}

export interface IdleCollectorOptions {
  /** Quiet time after the last job ended before collecting; 0 turns the collector off. */
  idleMs: number;
  /** Jobs running now (JobRunner.activeCount): a collection waits until it is 0. */
  activeCount: () => number;
  /** Told about each collection, for the log. */
  onCollected?: (collection: IdleCollection) => void;
  /** Test seam: the collection itself (default V8's full GC). */
  collect?: () => void;
}

let v8Collect: (() => void) | undefined;

/**
 * V8's full collection, compacting. Node exposes `gc` only with `--expose-gc`; setting that flag
 * at run time makes it available in contexts created from then on (Node's vm module), not as a
 * global. A plain full collection frees objects but compacts only the most fragmented pages: after
 * a sync of 1,000 apps the old generation kept 202 MB of pages for 136 MB of objects. With
 * `--compact-on-every-full-gc`, set for this one collection (V8 reads it at each collection), it
 * moves the survivors together and returns the emptied pages (a fragmented test heap: 114 → 45 MB
 * of old generation for 51 MB of objects, RSS 214 → 148 MB; ~1.5× the pause).
 */
function fullCollection(): () => void {
  if (!v8Collect) {
    let gc = (globalThis as { gc?: () => void }).gc;
    if (!gc) {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as () => void;
    }
    const collect = gc;
    // Started with the flag (every full collection compacts): nothing to switch, and nothing to
    // switch off afterwards.
    const always = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes(
      '--compact-on-every-full-gc',
    );
    v8Collect = always
      ? collect
      : () => {
          setFlagsFromString('--compact-on-every-full-gc');
          try {
            collect();
          } finally {
            setFlagsFromString('--no-compact-on-every-full-gc');
          }
        };
  }
  return v8Collect;
}

export class IdleCollector {
  private timer?: NodeJS.Timeout;
  /** Whether a job has ended since the last collection: an idle worker is collected once. */
  private dirty = false;
  private stopped = false;
  /** Collections made (tests). */
  collections = 0;

  constructor(private readonly options: IdleCollectorOptions) {}

  /** Call when a job ends: (re)starts the quiet period. */
  jobEnded(): void {
    if (this.options.idleMs <= 0 || this.stopped) return;
    this.dirty = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), this.options.idleMs);
    // Never what keeps a stopping process alive.
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private fire(): void {
    // A job that started since is still running: its end starts the quiet period again.
    if (!this.dirty || this.stopped || this.options.activeCount() > 0) return;
    this.dirty = false;
    const collect = this.options.collect ?? fullCollection();
    const heapUsedBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    collect();
    this.collections++;
    this.options.onCollected?.({
      ms: performance.now() - started,
      heapUsedBefore,
      heapUsedAfter: process.memoryUsage().heapUsed,
    });
  }
}
