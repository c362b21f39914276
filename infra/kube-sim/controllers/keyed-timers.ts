/**
 * One pending timer per key, like a workqueue's AddAfter: a controller asks to look at something
 * again later (a Job's active deadline, its TTL after finishing, a claim's bind delay). Asking again
 * keeps whichever run comes first. Timers are unref'd so they never keep a process alive, and
 * `stop()` clears them all. Pending timers are future work, not current work: idle() ignores them.
 */

/** setTimeout's largest delay; longer waits fire early and the handler schedules the rest. */
const MAX_DELAY_MS = 2_147_483_647;

export class KeyedTimers {
  private readonly timers = new Map<string, { at: number; handle: NodeJS.Timeout }>();
  private stopped = false;

  constructor(private readonly fire: (key: string) => void) {}

  /** Calls fire(key) after `delayMs`, unless a run at or before that time is already set. */
  after(key: string, delayMs: number): void {
    if (this.stopped) return;
    const delay = Math.min(Math.max(0, delayMs), MAX_DELAY_MS);
    const at = Date.now() + delay;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.handle);
    const handle = setTimeout(() => {
      this.timers.delete(key);
      if (!this.stopped) this.fire(key);
    }, delay);
    handle.unref();
    this.timers.set(key, { at, handle });
  }

  cancel(key: string): void {
    const existing = this.timers.get(key);
    if (!existing) return;
    clearTimeout(existing.handle);
    this.timers.delete(key);
  }

  stop(): void {
    this.stopped = true;
    for (const { handle } of this.timers.values()) clearTimeout(handle);
    this.timers.clear();
  }
}
