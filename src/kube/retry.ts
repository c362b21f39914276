/**
 * Retrying Kubernetes calls inside one job attempt: transient failures (5xx, 429 honouring
 * Retry-After, timeouts, stale-resourceVersion conflicts) are retried with jittered exponential
 * backoff a few times before the job's own retry takes over; permanent ones fail at once.
 */

import { backoffDelay } from '../core/backoff.ts';
import { TransientError } from '../core/errors.ts';
import { mapKubeError } from './errors.ts';

export interface RetryOptions {
  attempts?: number;
  baseMs?: number;
  signal?: AbortSignal;
  /** Called before each wait, for progress logs. */
  onRetry?(attempt: number, delayMs: number, error: TransientError): void;
}

export async function withKubeRetry<T>(
  what: string,
  call: () => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const mapped = mapKubeError(err, what);
      if (!(mapped instanceof TransientError) || attempt >= attempts || options.signal?.aborted) throw mapped;
      const delay = backoffDelay(attempt, options.baseMs ?? 100, mapped.retryAfterMs);
      options.onRetry?.(attempt, delay, mapped);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
