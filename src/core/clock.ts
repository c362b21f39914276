/**
 * Time as a dependency: the few modules whose behaviour is about time (the sync scheduler's
 * intervals, the informer caches' idle eviction) read the clock and set timers through a `Clock`
 * passed in their options instead of calling `Date.now()` / `setTimeout` directly, so a test can
 * drive them with a manual clock (test/helpers/manual-clock.ts) and assert exact outcomes instead
 * of sleeping and counting loosely. Production code passes nothing and gets `systemClock`.
 */

/** A pending timer of a Clock, as its setTimeout returns it; only good for its clearTimeout. */
export type ClockTimer = NodeJS.Timeout | number;

export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
  /** Calls `fn` once after `ms` milliseconds (0 or more). */
  setTimeout(fn: () => void, ms: number): ClockTimer;
  /** Cancels a timer that has not fired yet; a fired or cleared one is ignored. */
  clearTimeout(timer: ClockTimer): void;
}

/** The real clock: Date.now() and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};
