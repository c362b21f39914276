/**
 * A Clock (src/core/clock.ts) that moves only when a test says so: `advance(ms)` fires every timer
 * that comes due, in time order (ties in the order they were set), and lets the promises each
 * timer starts settle before firing the next, so code that awaits between timers (a scheduler's
 * tick) runs exactly as it would in real time, with no real time passing. What the code awaits
 * must itself be in memory (no sockets, no real timers): those are not drained here.
 */
import type { Clock, ClockTimer } from '../../src/core/clock.ts';

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

export class ManualClock implements Clock {
  private nowMs: number;
  private seq = 0;
  private readonly timers = new Map<number, Pending>();

  constructor(startMs = 0) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  setTimeout(fn: () => void, ms: number): ClockTimer {
    const id = ++this.seq;
    this.timers.set(id, { at: this.nowMs + Math.max(0, ms), seq: id, fn });
    return id;
  }

  clearTimeout(timer: ClockTimer): void {
    if (typeof timer === 'number') this.timers.delete(timer);
  }

  /** Timers set and not yet fired or cleared. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, firing what comes due on the way (also timers those timers set). */
  async advance(ms: number): Promise<void> {
    const until = this.nowMs + ms;
    await settle();
    for (;;) {
      const next = this.nextDue(until);
      if (!next) break;
      const [id, timer] = next;
      this.timers.delete(id);
      this.nowMs = timer.at;
      timer.fn();
      await settle();
    }
    this.nowMs = until;
  }

  private nextDue(until: number): [number, Pending] | undefined {
    let best: [number, Pending] | undefined;
    for (const entry of this.timers) {
      const t = entry[1];
      if (t.at > until) continue;
      if (!best || t.at < best[1].at || (t.at === best[1].at && t.seq < best[1].seq)) best = entry;
    }
    return best;
  }
}

/**
 * Lets every promise chain already started run to its end: the microtask queue is drained before
 * a setImmediate callback runs. Twice, for chains that hop through one macrotask (EventEmitter
 * listeners that schedule with setImmediate).
 */
async function settle(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
