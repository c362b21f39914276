/**
 * A coalescing work queue: keys added while a pass is pending are handled once, asynchronously,
 * like a controller's workqueue. `idle()` resolves when nothing is queued or running (tests use it
 * to wait for the garbage collector to settle).
 */
export class ReconcileQueue {
  private readonly pending = new Set<string>();
  private scheduled = false;
  private running = false;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly handle: (key: string) => void,
    private readonly onError: (key: string, err: unknown) => void,
    private readonly delayMs = 0,
  ) {}

  add(key: string): void {
    this.pending.add(key);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => this.run(), this.delayMs);
  }

  private run(): void {
    this.scheduled = false;
    this.running = true;
    // Keys added while running are handled in the next pass, after this one yields.
    const batch = [...this.pending];
    this.pending.clear();
    for (const key of batch) {
      try {
        this.handle(key);
      } catch (err) {
        this.onError(key, err);
      }
    }
    this.running = false;
    if (this.pending.size > 0) this.schedule();
    else for (const resolve of this.waiters.splice(0)) resolve();
  }

  get size(): number {
    return this.pending.size;
  }

  idle(): Promise<void> {
    if (!this.running && !this.scheduled && this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
