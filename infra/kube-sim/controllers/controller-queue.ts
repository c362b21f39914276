/**
 * A controller's work queue with upstream workqueue's `AddAfter`, on top of ReconcileQueue:
 * - `add(key)`: handle soon (coalesced);
 * - `addAfterStep(key, ms)`: handle after a short pause that is part of the current burst of work
 *   (the Deployment controller's step delay) — `idle()` waits for these;
 * - `addLater(key, ms)`: handle at a future time (progress deadlines, pods becoming ready,
 *   minReadySeconds) — `idle()` does not wait for these, so `sim.settle()` returns while a
 *   rollout waits on the clock. The earliest pending time per key wins, as in AddAfter.
 * `stop()` clears every timer; nothing is handled after it.
 */
import { ReconcileQueue } from './reconcile-queue.ts';

/** setTimeout's largest delay. */
const MAX_TIMEOUT_MS = 2_147_483_647;

interface Pending {
  at: number;
  timer: NodeJS.Timeout;
}

export class ControllerQueue {
  private readonly queue: ReconcileQueue;
  private readonly steps = new Map<string, NodeJS.Timeout>();
  private readonly later = new Map<string, Pending>();
  private stepWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(handle: (key: string) => void, onError: (key: string, err: unknown) => void) {
    this.queue = new ReconcileQueue((key) => {
      if (!this.stopped) handle(key);
    }, onError);
  }

  add(key: string): void {
    if (!this.stopped) this.queue.add(key);
  }

  addAfterStep(key: string, delayMs: number): void {
    if (this.stopped) return;
    if (delayMs <= 0) {
      this.queue.add(key);
      return;
    }
    if (this.steps.has(key)) return;
    const timer = setTimeout(() => {
      this.steps.delete(key);
      this.add(key);
      if (this.steps.size === 0) for (const resolve of this.stepWaiters.splice(0)) resolve();
    }, delayMs);
    this.steps.set(key, timer);
  }

  addLater(key: string, delayMs: number): void {
    if (this.stopped) return;
    // Longer delays would make setTimeout fire at once; the handler re-checks and asks again.
    const delay = Math.min(Math.max(0, delayMs), MAX_TIMEOUT_MS);
    const at = Date.now() + delay;
    const existing = this.later.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.later.delete(key);
      this.add(key);
    }, delay);
    // A pending deadline must not keep a standalone simulator's process alive on its own.
    timer.unref();
    this.later.set(key, { at, timer });
  }

  /** Drops a pending `addLater` (the object is gone). */
  forget(key: string): void {
    const existing = this.later.get(key);
    if (existing) clearTimeout(existing.timer);
    this.later.delete(key);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.steps.values()) clearTimeout(timer);
    for (const { timer } of this.later.values()) clearTimeout(timer);
    this.steps.clear();
    this.later.clear();
    for (const resolve of this.stepWaiters.splice(0)) resolve();
  }

  async idle(): Promise<void> {
    // Handling a key can schedule steps and steps feed the queue: wait until both stay empty.
    for (let i = 0; i < 1000 && !this.stopped; i++) {
      await this.queue.idle();
      if (this.steps.size === 0) {
        if (this.queue.size === 0) return;
        continue;
      }
      await new Promise<void>((resolve) => this.stepWaiters.push(resolve));
    }
  }
}
