import { describe, expect, it } from 'vitest';
import {
  CancelledError,
  ConfigError,
  InfrastructureError,
  InvalidInputError,
  MissingHandlerError,
  PermanentError,
  SealingError,
  TransientError,
} from '../../src/core/errors.ts';
import { isNetworkError, NETWORK_ERROR_CODES } from '../../src/core/network-errors.ts';
import { isConnectionError } from '../../src/core/redis.ts';
import { isConflict, mapKubeError } from '../../src/kube/errors.ts';
import { backoffDelay, classifyError, MAX_BACKOFF_MS, retryAfterFrom } from '../../src/workers/failure.ts';

const httpError = (code: number, headers: Record<string, string> = {}) =>
  Object.assign(new Error(`HTTP ${code}`), { code, headers });

/** A client-node ApiException: the HTTP code, and the Status body as the server sent it (a string). */
const apiError = (code: number, status: Record<string, unknown>) =>
  Object.assign(new Error(`HTTP-Code: ${code}`), {
    code,
    body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, ...status }),
  });

const withCode = (code: string, message = `connect ${code} 10.0.0.1:6443`) =>
  Object.assign(new Error(message), { code });

const modified = apiError(409, {
  reason: 'Conflict',
  message:
    'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
});
const alreadyExists = apiError(409, { reason: 'AlreadyExists', message: 'secrets "x" already exists' });
const fieldConflict = apiError(409, {
  reason: 'Conflict',
  message: 'Apply failed with 1 conflict: conflict with "m" using apps/v1: .spec.replicas',
  details: {
    causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "m"', field: '.spec.replicas' }],
  },
});

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

  it.each([
    [408, true],
    [425, true],
    [429, true],
    [500, true],
    [502, true],
    [503, true],
    [504, true],
    [409, true], // no Status reason: a conflict, as apimachinery's IsConflict reads it
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [405, false],
    [410, false],
    [413, false],
    [415, false],
    [422, false],
    [501, false],
  ])('HTTP %d is transient: %s', (status, transient) => {
    expect(classifyError(httpError(status)).transient).toBe(transient);
    expect(classifyError(Object.assign(new Error('x'), { statusCode: status })).transient).toBe(transient);
    expect(classifyError(Object.assign(new Error('x'), { status })).transient).toBe(transient);
  });

  it.each([
    ['an optimistic-lock conflict (the object has been modified)', modified, true],
    ['a 409 with a reason the API does not define', apiError(409, { reason: 'SomethingNew' }), true],
    ['AlreadyExists', alreadyExists, false],
    ['a server-side-apply field conflict', fieldConflict, false],
    ['a 409 with reason Invalid', apiError(409, { reason: 'Invalid' }), false],
    [
      'a 422 that mentions networking.k8s.io',
      apiError(422, { reason: 'Invalid', message: 'Ingress.networking.k8s.io "i" is invalid' }),
      false,
    ],
    ['a 429 Status', apiError(429, { reason: 'TooManyRequests', details: { retryAfterSeconds: 2 } }), true],
    [
      'a 504 Timeout',
      apiError(504, { reason: 'Timeout', message: 'Timeout: Too large resource version' }),
      true,
    ],
    ['a 404', apiError(404, { reason: 'NotFound', message: 'deployments.apps "web" not found' }), false],
  ])(
    'a Kubernetes error, %s: transient %s, the same for the runner and the kube retry',
    (_, err, transient) => {
      expect(classifyError(err).transient).toBe(transient);
      expect(mapKubeError(err, 'apply') instanceof TransientError).toBe(transient);
      expect(classifyError(new Error('handler failed', { cause: err })).transient).toBe(transient);
    },
  );

  it('tells an optimistic-lock conflict from the other 409s', () => {
    expect(isConflict(modified)).toBe(true);
    expect(isConflict(httpError(409))).toBe(true);
    expect(isConflict(alreadyExists)).toBe(false);
    expect(isConflict(fieldConflict)).toBe(false);
    expect(isConflict(httpError(500))).toBe(false);
  });

  it("waits as long as the server's Status asks", () => {
    const throttled = apiError(429, { reason: 'TooManyRequests', details: { retryAfterSeconds: 2 } });
    expect(classifyError(throttled).retryAfterMs).toBe(2000);
    expect((mapKubeError(throttled, 'list') as TransientError).retryAfterMs).toBe(2000);
  });

  it.each([...NETWORK_ERROR_CODES])('network error %s is transient everywhere', (code) => {
    const err = withCode(code);
    expect(isNetworkError(err)).toBe(true);
    expect(classifyError(err).transient).toBe(true);
    expect(mapKubeError(err, 'get')).toBeInstanceOf(TransientError);
    expect(isConnectionError(err)).toBe(true);
    expect(isConnectionError(new Error('could not enqueue', { cause: err }))).toBe(true);
  });

  it.each([
    [
      'a node-fetch timeout',
      Object.assign(new Error('network timeout at: https://k8s/api'), { name: 'FetchError' }),
    ],
    ['a FetchError', Object.assign(new Error('request to https://k8s failed'), { name: 'FetchError' })],
    // The real thing: a DOMException, whose numeric `code` (23) is not an HTTP status.
    ['an AbortSignal.timeout', new DOMException('The operation was aborted due to timeout', 'TimeoutError')],
  ])('an HTTP client failure told by its name (%s) is transient everywhere', (_, err) => {
    expect(classifyError(err).transient).toBe(true);
    expect(mapKubeError(err, 'get')).toBeInstanceOf(TransientError);
  });

  it('AbortSignal.timeout() itself fails with an error classified transient', async () => {
    const err = await new Promise<unknown>((resolve) => {
      const signal = AbortSignal.timeout(1);
      signal.addEventListener('abort', () => resolve(signal.reason));
    });
    expect(classifyError(err).transient).toBe(true);
    expect(mapKubeError(err, 'get')).toBeInstanceOf(TransientError);
  });

  it.each([
    ['socket hang up', Object.assign(new Error('socket hang up'), {})],
    ['Premature close', new Error('Premature close')],
    ['a code lost in the message', new Error('request failed, reason: connect ECONNREFUSED 10.0.0.1:6443')],
  ])(
    'an HTTP client failure told only by its message (%s) is transient for the Kubernetes retry',
    (_, err) => {
      expect(mapKubeError(err, 'get')).toBeInstanceOf(TransientError);
      // The runner sees client errors already mapped; a handler's own plain error is judged by what
      // it is, not by how it is worded.
      expect(classifyError(err).transient).toBe(false);
      expect(classifyError(mapKubeError(err, 'get')).transient).toBe(true);
    },
  );

  it.each([['the deploy was aborted by the operator'], ['could not reach network policy controller']])(
    'a handler error worded like a network failure (%s) is permanent for the runner',
    (message) => {
      expect(classifyError(new Error(message)).transient).toBe(false);
    },
  );

  it.each([
    ['a message that only mentions networking', new Error('no route for networking.k8s.io/v1 Ingress')],
    ['an unknown code', withCode('EACCES', 'permission denied')],
    ['a plain error', new Error('boom')],
  ])('%s is permanent', (_, err) => {
    expect(classifyError(err).transient).toBe(false);
    expect(mapKubeError(err, 'get')).toBeInstanceOf(PermanentError);
  });

  it.each([
    new InvalidInputError([{ path: 'a', message: 'b' }]),
    new ConfigError('bad env'),
    new SealingError('wrong key'),
    new InfrastructureError('redis down'),
    new CancelledError('cancelled'),
    new MissingHandlerError('none'),
    new PermanentError('network unreachable, says a handler that gave up'),
  ])('a longshore error is a verdict already given: %s', (err) => {
    expect(classifyError(err)).toEqual({ transient: false, message: err.message });
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
