/** The back-off of connection error lines, and which errors count as "Redis unreachable". */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConnectionLog } from '../../src/core/connection-log.ts';
import { createLogger } from '../../src/core/logger.ts';
import { describeRedisError, isConnectionError, redisAddress } from '../../src/core/redis.ts';

function refused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6390'), { code: 'ECONNREFUSED' });
}

function recorder() {
  const lines: { level: number; msg: string; errorsSinceLastLine?: number }[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: createLogger('info', {}, sink) };
}

describe('ConnectionLog', () => {
  it('logs an outage of errors every 100 ms as a few lines, then its end once', async () => {
    const { lines, logger } = recorder();
    let now = 0;
    const log = new ConnectionLog(logger, 'redis://127.0.0.1:6390', () => now);
    // 10 s of four connections failing every 100 ms: 400 errors.
    for (now = 0; now < 10_000; now += 100) {
      for (const c of ['main', 'worker', 'blocking', 'subscriber']) log.error(refused(), c);
    }
    log.ready('main');
    log.ready('worker');
    await new Promise((r) => setImmediate(r));
    const warnings = lines.filter((l) => l.level === 40);
    // At 0, 1, 3 and 7 s.
    expect(warnings).toHaveLength(4);
    expect(warnings[0]!.msg).toBe(
      'Redis at 127.0.0.1:6390 is unreachable (connection refused); reconnecting',
    );
    expect(warnings[1]!.msg).toMatch(/still unreachable after 1 s/);
    expect(warnings.slice(1).reduce((n, l) => n + (l.errorsSinceLastLine ?? 0), 0)).toBeLessThan(400);
    expect(lines.filter((l) => l.msg === 'connected to Redis at 127.0.0.1:6390 again')).toHaveLength(1);
  });

  it('logs nothing once muted (connections closed on purpose)', async () => {
    const { lines, logger } = recorder();
    const log = new ConnectionLog(logger, 'redis://127.0.0.1:6390');
    log.mute();
    log.error(refused(), 'main');
    await new Promise((r) => setImmediate(r));
    expect(lines).toEqual([]);
  });
});

describe('connection errors', () => {
  it('tells an unreachable Redis from a failed command, through wrapping errors', () => {
    expect(isConnectionError(refused())).toBe(true);
    expect(isConnectionError(new Error('could not enqueue', { cause: refused() }))).toBe(true);
    const maxRetries = Object.assign(new Error('Reached the max retries per request limit (which is 1).'), {
      name: 'MaxRetriesPerRequestError',
    });
    expect(isConnectionError(maxRetries)).toBe(true);
    expect(describeRedisError(maxRetries)).toBe('connection lost');
    expect(isConnectionError(new Error('Connection is closed.'))).toBe(true);
    expect(
      isConnectionError(new Error('WRONGTYPE Operation against a key holding the wrong kind of value')),
    ).toBe(false);
    expect(describeRedisError(refused())).toBe('connection refused');
  });

  it('names a Redis by host and port', () => {
    expect(redisAddress('redis://:secret@redis.internal:6380/0')).toBe('redis.internal:6380');
    expect(redisAddress('redis://127.0.0.1')).toBe('127.0.0.1:6379');
  });
});
