/**
 * Network failures: the connection to a server (Redis, the Kubernetes API) could not be made or
 * broke, as opposed to the server answering with a refusal. The job runner retries them
 * (src/workers/failure.ts), the Kubernetes retry does (src/kube/errors.ts), and a producer waits
 * for Redis to come back (src/core/redis.ts `isConnectionError`): all three read this one list.
 *
 * `ENOTFOUND` is in it: a host name that does not resolve is most often a DNS server that does not
 * answer yet (a cluster's DNS restarting); a misspelt host stays unresolved, and the retries are
 * bounded, so it still fails, only later.
 *
 * The callers differ in what else they trust beside the codes:
 * - message patterns (isNetworkError) are for errors of the Kubernetes HTTP client, whose connection
 *   errors can lose their code on the way (node-fetch's "socket hang up", "Premature close",
 *   "network timeout at …");
 * - the job runner sees every error a handler throws, whose messages may say anything ("the deploy
 *   was aborted by the operator"), so it trusts codes and error names only (isNetworkFailure); an
 *   HTTP client's error reaches it already mapped by the Kubernetes retry (mapKubeError);
 * - Redis errors come from ioredis, which keeps the code of every connection failure; its messages
 *   are replies the server sent (a script's error text), so redis.ts matches codes only, plus
 *   ioredis's own phrases.
 */

/** `code` of Node's system errors (errno) and undici's socket errors for a failed connection. */
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Error names HTTP clients give a failed or timed-out request (node-fetch, AbortSignal.timeout). */
const NETWORK_ERROR_NAMES: ReadonlySet<string> = new Set(['FetchError', 'TimeoutError']);

/**
 * Connection failures told only in the message (the code was dropped, or there never was one).
 * Whole words, so that `networking.k8s.io` in an API message is not a network failure.
 */
const NETWORK_MESSAGE = new RegExp(
  `\\b(?:${[...NETWORK_ERROR_CODES].join('|')}|socket hang up|network|Premature close|aborted)\\b`,
  'i',
);

/** Whether `err` itself (not what it wraps) carries one of the network error codes. */
export function hasNetworkErrorCode(err: unknown): boolean {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && NETWORK_ERROR_CODES.has(code);
}

/**
 * Whether `err` itself is a network failure by what it is, not by what it says: a network error
 * code, or the name HTTP clients give a failed or timed-out request (`AbortSignal.timeout()`'s
 * DOMException is a `TimeoutError`).
 */
export function isNetworkFailure(err: unknown): boolean {
  if (hasNetworkErrorCode(err)) return true;
  const name = (err as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' && NETWORK_ERROR_NAMES.has(name);
}

/** Whether `err` itself is an HTTP client's network failure: by its code, its name or its message. */
export function isNetworkError(err: unknown): boolean {
  if (isNetworkFailure(err)) return true;
  return err instanceof Error && NETWORK_MESSAGE.test(err.message);
}
