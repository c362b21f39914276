/**
 * Backoff arithmetic shared by job retries (workers) and in-attempt API retries (kube): jittered
 * exponential delays that never undercut a server's Retry-After.
 */

/** Upper bound of one backoff delay, so a long outage is polled at least every 5 minutes. */
export const MAX_BACKOFF_MS = 5 * 60_000;

/** Retry-After as seconds or an HTTP date, from a plain object or a Headers instance. */
export function retryAfterFrom(headers: unknown): number | undefined {
  let raw: unknown;
  if (headers && typeof (headers as { get?: unknown }).get === 'function') {
    raw = (headers as { get(name: string): unknown }).get('retry-after');
  } else if (headers && typeof headers === 'object') {
    const entry = Object.entries(headers).find(([k]) => k.toLowerCase() === 'retry-after');
    raw = entry?.[1];
  }
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  const text = String(raw).trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * Delay before attempt `attemptsMade + 1`: base × 2^(attemptsMade−1), times a random factor in
 * [0.5, 1.5) so a fleet that failed together does not retry together; never below a server's
 * Retry-After; capped at MAX_BACKOFF_MS.
 */
export function backoffDelay(
  attemptsMade: number,
  baseMs: number,
  retryAfterMs?: number,
  random = Math.random,
): number {
  const exponential = baseMs * 2 ** Math.max(0, attemptsMade - 1);
  const jittered = Math.round(exponential * (0.5 + random()));
  const floor = retryAfterMs ?? 0;
  return Math.min(Math.max(jittered, floor), Math.max(MAX_BACKOFF_MS, floor));
}
