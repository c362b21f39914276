/**
 * Failure classes. Transient failures (network errors, API 5xx, 429, 408, 409 conflicts, timeouts)
 * are retried with a jittered exponential backoff, bounded by the job's attempts; everything else
 * fails the job at once with its reason, because retrying bad input or a refused request only
 * repeats the refusal and delays the operator.
 */

import { retryAfterFrom } from '../core/backoff.ts';
import {
  CancelledError,
  ConfigError,
  InvalidInputError,
  LongshoreError,
  MissingHandlerError,
  PermanentError,
  SealingError,
  TransientError,
} from '../core/errors.ts';

export { backoffDelay, MAX_BACKOFF_MS, retryAfterFrom } from '../core/backoff.ts';

export interface Classified {
  transient: boolean;
  message: string;
  retryAfterMs?: number;
}

const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

const TRANSIENT_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

export function classifyError(err: unknown): Classified {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof TransientError) {
    return {
      transient: true,
      message,
      ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
    };
  }
  if (
    err instanceof InvalidInputError ||
    err instanceof PermanentError ||
    err instanceof SealingError ||
    err instanceof MissingHandlerError ||
    err instanceof CancelledError ||
    err instanceof ConfigError
  ) {
    return { transient: false, message };
  }
  if (err instanceof LongshoreError) return { transient: false, message };
  if (!(err instanceof Error)) return { transient: false, message };

  const e = err as Error & {
    code?: unknown;
    statusCode?: unknown;
    status?: unknown;
    headers?: unknown;
    cause?: unknown;
  };
  if (typeof e.code === 'string' && TRANSIENT_NETWORK_CODES.has(e.code)) return { transient: true, message };
  if (e.name === 'TimeoutError' || e.name === 'FetchError') return { transient: true, message };
  const status = [e.code, e.statusCode, e.status].find((v): v is number => typeof v === 'number');
  if (status !== undefined) {
    if (!TRANSIENT_STATUS.has(status)) return { transient: false, message };
    const retryAfterMs = status === 429 || status === 503 ? retryAfterFrom(e.headers) : undefined;
    return { transient: true, message, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
  if (e.cause) {
    const inner = classifyError(e.cause);
    if (inner.transient) return { ...inner, message };
  }
  return { transient: false, message };
}
