/**
 * Every wait in the tests, in one place, each saying what it waits for:
 * - `until(probe, what)`: something is expected to happen; poll until it has (bounded);
 * - `stays(probe, ms, what)`: something is expected NOT to happen; poll for the whole window and
 *   fail the moment it does (a bare sleep followed by one look could miss a blip in between);
 * - `within(promise, ms, what)`: a promise that must settle in time;
 * - `holdFor(ms, why)`: a pause that is part of a fault scenario (keep Redis down long enough to
 *   exercise reconnect back-off) — the length is the point, not a guess at how long something takes;
 * - `simulateWork(ms, signal)`: a test job's slow work (fixtures), not a wait at all.
 * A fixed sleep anywhere else in test/ fails `npm run lint` (scripts/check-test-waits.ts).
 */

export interface UntilOptions {
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
  /** Poll this often (default 50 ms). */
  intervalMs?: number;
  /**
   * What a probe that throws means. `retry` (default): not yet (a read of something that does not
   * exist yet); the last error is named if time runs out. `throw`: a failure, reported at once.
   */
  errors?: 'retry' | 'throw';
}

/**
 * Polls `probe` until it returns something other than undefined or false, and returns that; throws
 * naming `what` after `timeoutMs`. The probe runs at once, so a condition already true costs nothing.
 */
export async function until<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  { timeoutMs = 20_000, intervalMs = 50, errors = 'retry' }: UntilOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
    } catch (err) {
      if (errors === 'throw') throw err;
      last = err;
    }
    if (Date.now() >= deadline) break;
    await pause(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`,
  );
}

/**
 * Polls `probe` for `ms` and fails as soon as it returns false (or throws): the condition held for
 * the whole window, the last look at or after its end. For "nothing happens": no tick after stop(),
 * a claim stays Pending. The window is what a sleep before one look used to be, so it costs the same.
 */
export async function stays(
  probe: () => Promise<boolean> | boolean,
  ms: number,
  what: string,
  { intervalMs = 25 }: { intervalMs?: number } = {},
): Promise<void> {
  const started = Date.now();
  const end = started + ms;
  for (;;) {
    let ok: boolean;
    try {
      ok = await probe();
    } catch (err) {
      throw new Error(
        `expected ${what} for ${ms} ms, but checking it threw after ${Date.now() - started} ms`,
        {
          cause: err,
        },
      );
    }
    if (!ok)
      throw new Error(
        `expected ${what} for ${ms} ms, but it stopped holding after ${Date.now() - started} ms`,
      );
    const left = end - Date.now();
    if (left < 0) return;
    // One more look at (or just after) the end of the window, however the polls fell.
    await pause(Math.min(intervalMs, left + 1));
  }
}

/** `promise`, or an error naming `what` if it has not settled after `ms` (the timer is cleared either way). */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A deliberate pause in a fault scenario: Redis stays down for `ms` so reconnect back-off has run,
 * or a window of logs is counted. `why` documents the length (and shows in a timeout's stack).
 * Not for waiting until something happened (`until`) or to show nothing happens (`stays`).
 */
export function holdFor(ms: number, why: string): Promise<void> {
  if (!why.trim()) throw new Error('holdFor: say why the scenario pauses');
  return pause(ms);
}

/**
 * A test job's slow work (fixtures): takes `ms`, or rejects with the signal's reason when it aborts
 * first (a cancelled or handed-back job stops working at once). Job behaviour, not a wait.
 */
export function simulateWork(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The one timer-based pause, private to this file. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
