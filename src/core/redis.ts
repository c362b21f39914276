/**
 * Redis connections. Workers need `maxRetriesPerRequest: null` so BullMQ's blocking commands
 * survive a Redis restart and reconnect by themselves; short-lived CLI producers fail fast instead
 * of queueing commands for a server that is not there.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { InfrastructureError } from './errors.ts';

export type RedisRole = 'worker' | 'producer';

export function createRedis(url: string, role: RedisRole, extra: RedisOptions = {}): Redis {
  const common: RedisOptions = {
    lazyConnect: false,
    // Reconnect with a capped backoff forever: a Redis restart must not need a worker restart.
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), 2_000),
    ...extra,
  };
  if (role === 'worker') {
    return new Redis(url, { ...common, maxRetriesPerRequest: null, enableReadyCheck: true });
  }
  return new Redis(url, { ...common, maxRetriesPerRequest: 1, connectTimeout: 5_000 });
}

/** Resolves once the connection is ready, or fails with an error naming the URL (password hidden). */
export async function waitForRedis(client: Redis, url: string, timeoutMs = 5_000): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    let lastError: Error | undefined;
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new InfrastructureError(
          `cannot reach Redis at ${redactUrl(url)} within ${timeoutMs} ms${lastError ? `: ${lastError.message}` : ''} ` +
            '(set REDIS_URL, or run `npm start` for a private one)',
        ),
      );
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onError = (err: Error) => {
      lastError = err;
    };
    const cleanup = () => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
    };
    client.on('ready', onReady);
    client.on('error', onError);
  });
}

export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):([^@/]*)@/, '//$1:***@');
}
