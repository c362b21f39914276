/**
 * Errors of the Kubernetes API, as longshore's failure classes: transient ones (5xx, 429 with
 * Retry-After, 408, timeouts, network errors, optimistic-concurrency conflicts) become
 * TransientError so jobs retry them; everything else PermanentError with the server's message.
 * A server-side-apply field conflict (409 with FieldManagerConflict causes) is permanent: applying
 * again changes nothing.
 */

import { retryAfterFrom } from '../core/backoff.ts';
import { PermanentError, TransientError } from '../core/errors.ts';

export interface KubeStatus {
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: { reason?: string; message?: string; field?: string }[]; retryAfterSeconds?: number };
}

/** The HTTP code and Status body of a client-node ApiException (or undefined for other errors). */
export function kubeStatusOf(
  err: unknown,
): { code: number; status?: KubeStatus; headers?: unknown } | undefined {
  const e = err as { code?: unknown; body?: unknown; headers?: unknown };
  if (typeof e?.code !== 'number') return undefined;
  let status: KubeStatus | undefined;
  if (typeof e.body === 'string') {
    try {
      status = JSON.parse(e.body) as KubeStatus;
    } catch {
      status = { message: e.body };
    }
  } else if (e.body && typeof e.body === 'object') status = e.body as KubeStatus;
  return { code: e.code, ...(status ? { status } : {}), ...(e.headers ? { headers: e.headers } : {}) };
}

export const isNotFound = (err: unknown) => kubeStatusOf(err)?.code === 404;
export const isAlreadyExists = (err: unknown) => kubeStatusOf(err)?.status?.reason === 'AlreadyExists';
/** Optimistic-concurrency conflict (stale resourceVersion), not an apply field conflict. */
export const isConflict = (err: unknown) => {
  const s = kubeStatusOf(err);
  return s?.code === 409 && s.status?.reason === 'Conflict' && !isFieldManagerConflict(err);
};
export const isFieldManagerConflict = (err: unknown) =>
  (kubeStatusOf(err)?.status?.details?.causes ?? []).some((c) => c.reason === 'FieldManagerConflict');

const TRANSIENT = new Set([408, 425, 429, 500, 502, 503, 504]);
const NETWORK = /ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|socket hang up|network|Premature close|aborted/i;

/** `what` says what longshore was doing (`apply apps/v1 Deployment web/web-web`). */
export function mapKubeError(err: unknown, what: string): TransientError | PermanentError {
  const info = kubeStatusOf(err);
  if (!info) {
    const message = (err as Error)?.message ?? String(err);
    if (NETWORK.test(message) || (err as { code?: unknown })?.code === 'ECONNRESET') {
      return new TransientError(`${what}: ${message}`, undefined, { cause: err });
    }
    return new PermanentError(`${what}: ${message}`, { cause: err });
  }
  const message = info.status?.message ?? `HTTP ${info.code}`;
  if (TRANSIENT.has(info.code) || isConflict(err)) {
    const seconds = info.status?.details?.retryAfterSeconds;
    const retryAfterMs = seconds !== undefined ? seconds * 1000 : retryAfterFrom(info.headers);
    return new TransientError(`${what}: ${message}`, retryAfterMs, { cause: err });
  }
  return new PermanentError(`${what}: ${message}`, { cause: err });
}
