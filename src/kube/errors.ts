/**
 * Errors of the Kubernetes API, and the one rule for which of them may pass by themselves
 * (classifyKubeStatus), used by the Kubernetes retry (withKubeRetry, through mapKubeError) and by
 * the job runner's failure classes (src/workers/failure.ts) alike:
 * - transient: 408, 425, 429 (honouring Retry-After), 5xx gateway and server errors, network
 *   errors (src/core/network-errors.ts), and optimistic-concurrency conflicts — 409 Conflict,
 *   "the object has been modified; please apply your changes to the latest version": read again
 *   and the write goes through;
 * - permanent: every other status, and the two other 409s: AlreadyExists (creating it again finds
 *   it again) and a server-side-apply field conflict (409 Conflict with FieldManagerConflict
 *   causes: applying again conflicts again).
 * A 409 without a reason the API defines counts as Conflict, as apimachinery's IsConflict reads it
 * (k8s.io/apimachinery/pkg/api/errors: an unknown reason falls back on the code).
 */

import { retryAfterFrom } from '../core/backoff.ts';
import { PermanentError, TransientError } from '../core/errors.ts';
import { isNetworkError } from '../core/network-errors.ts';

export interface KubeStatus {
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: { reason?: string; message?: string; field?: string }[]; retryAfterSeconds?: number };
}

/** Whether `value` is an HTTP status code (a DOMException's numeric `code` is not one). */
export function isHttpStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599;
}

/** The HTTP code and Status body of a client-node ApiException (or undefined for other errors). */
export function kubeStatusOf(
  err: unknown,
): { code: number; status?: KubeStatus; headers?: unknown } | undefined {
  const e = err as { code?: unknown; body?: unknown; headers?: unknown };
  if (!isHttpStatus(e?.code)) return undefined;
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

/** metav1.StatusReason values (k8s.io/apimachinery/pkg/apis/meta/v1/types.go). */
const KNOWN_REASONS: ReadonlySet<string> = new Set([
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Gone',
  'Invalid',
  'ServerTimeout',
  'StoreReadError',
  'Timeout',
  'TooManyRequests',
  'BadRequest',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'InternalError',
  'Expired',
  'ServiceUnavailable',
]);

const hasFieldManagerConflict = (status: KubeStatus | undefined) =>
  (status?.details?.causes ?? []).some((c) => c.reason === 'FieldManagerConflict');

/** An optimistic-concurrency conflict (stale resourceVersion): 409 Conflict, not a field conflict. */
function isOptimisticConflict(code: number, status: KubeStatus | undefined): boolean {
  if (code !== 409 || hasFieldManagerConflict(status)) return false;
  const reason = status?.reason ?? '';
  return reason === 'Conflict' || !KNOWN_REASONS.has(reason);
}

/** Optimistic-concurrency conflict (stale resourceVersion), not an apply field conflict. */
export const isConflict = (err: unknown) => {
  const s = kubeStatusOf(err);
  return s !== undefined && isOptimisticConflict(s.code, s.status);
};
export const isFieldManagerConflict = (err: unknown) => hasFieldManagerConflict(kubeStatusOf(err)?.status);

/** Statuses that may pass by themselves whatever their reason. */
const TRANSIENT_CODES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

export interface StatusClass {
  transient: boolean;
  /** How long the server asked to wait (Status `details.retryAfterSeconds`, else `Retry-After`). */
  retryAfterMs?: number;
}

/** Whether an API answer with HTTP `code` (and its Status body, when there is one) may pass. */
export function classifyKubeStatus(code: number, status?: KubeStatus, headers?: unknown): StatusClass {
  if (!TRANSIENT_CODES.has(code) && !isOptimisticConflict(code, status)) return { transient: false };
  const seconds = status?.details?.retryAfterSeconds;
  const retryAfterMs = seconds !== undefined ? seconds * 1000 : retryAfterFrom(headers);
  return { transient: true, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/** `what` says what longshore was doing (`apply apps/v1 Deployment web/web-web`). */
export function mapKubeError(err: unknown, what: string): TransientError | PermanentError {
  const info = kubeStatusOf(err);
  if (!info) {
    const message = (err as Error)?.message ?? String(err);
    if (isNetworkError(err)) return new TransientError(`${what}: ${message}`, undefined, { cause: err });
    return new PermanentError(`${what}: ${message}`, { cause: err });
  }
  const message = info.status?.message ?? `HTTP ${info.code}`;
  const verdict = classifyKubeStatus(info.code, info.status, info.headers);
  if (verdict.transient)
    return new TransientError(`${what}: ${message}`, verdict.retryAfterMs, { cause: err });
  return new PermanentError(`${what}: ${message}`, { cause: err });
}
