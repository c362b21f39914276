/**
 * Redis connections: one policy per kind of process, so a Redis restart reads the same everywhere.
 *
 * - `worker`: commands wait for the connection however long it is gone (`maxRetriesPerRequest:
 *   null`, which BullMQ's blocking commands need) and the client reconnects forever.
 * - `producer` (long-running producers such as the scheduler): reconnects forever, but a command
 *   sent while Redis is gone fails after a reconnect attempt or two instead of queueing, so the
 *   caller notices the outage.
 * - `cli`: like `producer` once connected, but the first connection gets a few quick attempts and
 *   then gives up, so a CLI command against a Redis that is not there fails in about a second with
 *   one line instead of hanging. A CLI command that waits (`--wait`) rides out an outage by
 *   retrying its reads (see waitForJob), while the client reconnects with a back-off.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { InfrastructureError } from './errors.ts';
import { hasNetworkErrorCode } from './network-errors.ts';

export type RedisRole = 'worker' | 'producer' | 'cli';

/** Attempts the CLI's first connection gets before the command gives up. */
export const CLI_CONNECT_ATTEMPTS = 3;
/** How long one connection attempt of the CLI may take (a host that does not answer at all). */
const CLI_CONNECT_TIMEOUT_MS = 3_000;

/** Capped exponential back-off between reconnection attempts: 100 ms, 200 ms, … `capMs`. */
export function reconnectDelay(attempt: number, capMs: number): number {
  return Math.min(50 * 2 ** Math.min(attempt, 10), capMs);
}

/**
 * A Redis Cluster's seed nodes, from a URL that lists several (`redis://h1:7000,h2:7001`, as
 * LONGSHORE_REDIS_CLUSTER builds it, see core/env.ts); undefined for a single Redis's URL.
 */
export function clusterNodesOf(url: string): { host: string; port: number }[] | undefined {
  const match = /^rediss?:\/\/(?:[^@/]*@)?([^/?#]+)/.exec(url);
  if (!match || !match[1]!.includes(',')) return undefined;
  return match[1]!.split(',').map((node) => {
    const colon = node.lastIndexOf(':');
    return colon > 0
      ? { host: node.slice(0, colon), port: Number(node.slice(colon + 1)) }
      : { host: node, port: 6379 };
  });
}

/**
 * A connection to the fleet's Redis: an ioredis `Cluster` when `url` lists cluster nodes, else a
 * plain `Redis`. The Cluster is typed as `Redis`: it has the same command interface (commands,
 * pipelines, scripts, pub/sub, `duplicate`), and BullMQ takes either (it checks `isCluster`);
 * one client type keeps every caller unchanged. Each node connection gets the role's policy.
 */
export function createRedis(url: string, role: RedisRole, extra: RedisOptions = {}): Redis {
  const nodes = clusterNodesOf(url);
  if (!nodes) return createSingleRedis(url, role, extra);
  const auth = new URL(url.replace(/^(rediss?:\/\/(?:[^@/]*@)?)[^/?#]+/, '$1placeholder'));
  const nodeOptions = roleOptions(role, extra);
  let everReady = false;
  const cluster = new Cluster(nodes, {
    lazyConnect: false,
    enableReadyCheck: true,
    // The cluster client reconnects through its own strategy; each node connection does not.
    clusterRetryStrategy: (times) =>
      role !== 'cli' || everReady || times < CLI_CONNECT_ATTEMPTS
        ? reconnectDelay(times, role === 'cli' ? 1_000 : 2_000)
        : null,
    redisOptions: {
      ...nodeOptions,
      ...(auth.username ? { username: decodeURIComponent(auth.username) } : {}),
      ...(auth.password ? { password: decodeURIComponent(auth.password) } : {}),
      ...(url.startsWith('rediss:') ? { tls: {} } : {}),
    },
  });
  cluster.once('ready', () => {
    everReady = true;
  });
  return cluster as unknown as Redis;
}

/** The per-connection options of a role (see the file comment). */
function roleOptions(role: RedisRole, extra: RedisOptions): RedisOptions {
  if (role === 'worker') return { maxRetriesPerRequest: null, ...extra };
  if (role === 'producer') return { maxRetriesPerRequest: 1, connectTimeout: 5_000, ...extra };
  return { maxRetriesPerRequest: 1, connectTimeout: CLI_CONNECT_TIMEOUT_MS, ...extra };
}

function createSingleRedis(url: string, role: RedisRole, extra: RedisOptions): Redis {
  if (role === 'worker') {
    return new Redis(url, {
      lazyConnect: false,
      // A Redis restart must not need a worker restart.
      retryStrategy: (times) => reconnectDelay(times, 2_000),
      maxRetriesPerRequest: null,
      enableReadyCheck: true,
      ...extra,
    });
  }
  if (role === 'producer') {
    return new Redis(url, {
      lazyConnect: false,
      retryStrategy: (times) => reconnectDelay(times, 2_000),
      maxRetriesPerRequest: 1,
      connectTimeout: 5_000,
      ...extra,
    });
  }
  let everReady = false;
  const client = new Redis(url, {
    lazyConnect: false,
    // Before the first connection: a few quick attempts, then give up (the client ends, and
    // waitForRedis reports why). After it: reconnect for as long as the command runs; a waiting
    // command is back within a second of Redis.
    retryStrategy: (times) =>
      everReady || times < CLI_CONNECT_ATTEMPTS ? reconnectDelay(times, 1_000) : null,
    maxRetriesPerRequest: 1,
    connectTimeout: CLI_CONNECT_TIMEOUT_MS,
    ...extra,
  });
  client.once('ready', () => {
    everReady = true;
  });
  return client;
}

/**
 * Resolves once the connection is ready, or fails with an InfrastructureError that says where
 * Redis was expected, why it could not be reached, and what to do (password hidden).
 */
export async function waitForRedis(client: Redis, url: string, timeoutMs = 5_000): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    let lastError: Error | undefined;
    const fail = (reason: string) => {
      cleanup();
      reject(unreachableRedis(url, reason, lastError));
    };
    const timer = setTimeout(
      () => fail(lastError ? describeRedisError(lastError) : `no answer within ${timeoutMs} ms`),
      timeoutMs,
    );
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onError = (err: Error) => {
      lastError = err;
    };
    // The client gave up reconnecting (the CLI's few first attempts are spent).
    const onEnd = () => fail(lastError ? describeRedisError(lastError) : 'the connection was closed');
    const cleanup = () => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      client.off('end', onEnd);
    };
    client.on('ready', onReady);
    client.on('error', onError);
    client.on('end', onEnd);
  });
}

/** The error every process reports when Redis is not there, with the setting that points at it. */
export function unreachableRedis(url: string, reason: string, cause?: Error): InfrastructureError {
  return new InfrastructureError(
    `cannot reach Redis at ${redactUrl(url)} (${reason}); is it running? ` +
      'Set REDIS_URL to the fleet’s Redis, or run `npm start` for a local one',
    cause ? { cause } : undefined,
  );
}

/** A connection error in a few words a person reads: `connection refused`, `unknown host`… */
export function describeRedisError(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      if (err.name === 'MaxRetriesPerRequestError' || /Connection is closed/.test(err.message))
        return 'connection lost';
      return err.message;
  }
}

/**
 * Whether `err` (or an error it wraps) means "Redis is not reachable right now" rather than a
 * failed command: the caller may retry once the connection is back. Codes are the shared list
 * (./network-errors.ts, which says why Redis matches no HTTP-client messages); the messages
 * below are ioredis's own.
 */
export function isConnectionError(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (hasNetworkErrorCode(e)) return true;
    if (e.name === 'MaxRetriesPerRequestError') return true;
    if (
      /Connection is closed|Stream isn't writeable|Command timed out|connect ETIMEDOUT|^LOADING /.test(
        e.message,
      )
    )
      return true;
  }
  return false;
}

/** `host:port` of a Redis URL, for messages about the connection. */
export function redisAddress(url: string): string {
  const nodes = clusterNodesOf(url);
  if (nodes) return `cluster ${nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return redactUrl(url);
  }
}

export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):([^@/]*)@/, '//$1:***@');
}
