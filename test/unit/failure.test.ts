import { describe, expect, it } from 'vitest';
import {
  InvalidInputError,
  MissingHandlerError,
  PermanentError,
  TransientError,
} from '../../src/core/errors.ts';
import { backoffDelay, classifyError, MAX_BACKOFF_MS, retryAfterFrom } from '../../src/workers/failure.ts';

const httpError = (code: number, headers: Record<string, string> = {}) =>
  Object.assign(new Error(`HTTP ${code}`), { code, headers });

describe('failure classes', () => {
  it('retries transient failures', () => {
    expect(classifyError(new TransientError('x', 1500))).toEqual({
      transient: true,
      message: 'x',
      retryAfterMs: 1500,
    });
    expect(classifyError(Object.assign(new Error('reset'), { code: 'ECONNRESET' })).transient).toBe(true);
    for (const status of [408, 409, 429, 500, 502, 503, 504])
      expect(classifyError(httpError(status)).transient).toBe(true);
    expect(
      classifyError(new Error('wrapped', { cause: Object.assign(new Error('t'), { code: 'ETIMEDOUT' }) }))
        .transient,
    ).toBe(true);
  });

  it('fails everything else at once', () => {
    for (const status of [400, 401, 403, 404, 422])
      expect(classifyError(httpError(status)).transient).toBe(false);
    expect(classifyError(new InvalidInputError([{ path: 'a', message: 'b' }])).transient).toBe(false);
    expect(classifyError(new PermanentError('no')).transient).toBe(false);
    expect(classifyError(new MissingHandlerError('none')).transient).toBe(false);
    expect(classifyError(new Error('plain')).transient).toBe(false);
    expect(classifyError('a string').transient).toBe(false);
  });

  it('honours Retry-After in seconds or as a date', () => {
    expect(classifyError(httpError(429, { 'Retry-After': '7' })).retryAfterMs).toBe(7000);
    expect(retryAfterFrom(new Headers({ 'retry-after': '3' }))).toBe(3000);
    const date = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfterFrom({ 'retry-after': date })).toBeGreaterThan(8000);
    expect(retryAfterFrom({})).toBeUndefined();
  });
});

describe('backoff', () => {
  it('doubles per attempt with ±50% jitter', () => {
    expect(backoffDelay(1, 1000, undefined, () => 0)).toBe(500);
    expect(backoffDelay(1, 1000, undefined, () => 0.999)).toBe(1499);
    expect(backoffDelay(3, 1000, undefined, () => 0.5)).toBe(4000);
  });

  it('never waits less than Retry-After, and is capped', () => {
    expect(backoffDelay(1, 100, 5000, () => 0)).toBe(5000);
    expect(backoffDelay(30, 1000, undefined, () => 0.5)).toBe(MAX_BACKOFF_MS);
    expect(backoffDelay(1, 100, MAX_BACKOFF_MS * 2, () => 0)).toBe(MAX_BACKOFF_MS * 2);
  });
});
