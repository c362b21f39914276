/**
 * Failure classes. Transient failures are retried with a jittered exponential backoff, bounded by
 * the job's attempts; everything else fails the job at once with its reason, because retrying bad
 * input or a refused request only repeats the refusal and delays the operator.
 *
 * Transient: a TransientError (a handler's or the Kubernetes retry's verdict), a network failure
 * by its code or error name (src/core/network-errors.ts; never by its message, which a handler's
 * error may word any way), or an HTTP status the Kubernetes rule calls transient
 * (src/kube/errors.ts classifyKubeStatus: 408, 425, 429, 5xx, and a 409 only when it is an
 * optimistic-concurrency conflict, not AlreadyExists or a field-manager conflict). An error that
 * wraps a transient one (`cause`) is transient too.
 */

import { LongshoreError, TransientError } from '../core/errors.ts';
import { isNetworkFailure } from '../core/network-errors.ts';
import { classifyKubeStatus, isHttpStatus, kubeStatusOf } from '../kube/errors.ts';

export { backoffDelay, MAX_BACKOFF_MS, retryAfterFrom } from '../core/backoff.ts';

export interface Classified {
  transient: boolean;
  message: string;
  retryAfterMs?: number;
}

export function classifyError(err: unknown): Classified {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof TransientError) {
    return {
      transient: true,
      message,
      ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
    };
  }
  // Every other longshore error is a verdict already given: bad input, a refused or failed
  // operation, a cancel, a missing handler, an unusable configuration.
  if (err instanceof LongshoreError || !(err instanceof Error)) return { transient: false, message };

  const e = err as Error & { code?: unknown; statusCode?: unknown; status?: unknown; headers?: unknown };
  if (isNetworkFailure(err)) return { transient: true, message };
  // Only numbers that are HTTP statuses: a DOMException's `code` is a legacy number (23 for a
  // TimeoutError), not a status.
  const code = [e.code, e.statusCode, e.status].find(isHttpStatus);
  if (code !== undefined) {
    const verdict = classifyKubeStatus(code, kubeStatusOf(err)?.status, e.headers);
    return { ...verdict, message };
  }
  if (e.cause) {
    const inner = classifyError(e.cause);
    if (inner.transient) return { ...inner, message };
  }
  return { transient: false, message };
}
