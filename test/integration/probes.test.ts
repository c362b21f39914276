/**
 * The probes infra/deploy's Deployments point at (/healthz liveness, /readyz readiness): a real
 * `longshore scheduler` process and the API server on a real redis-server, over real HTTP. The
 * worker's own are tested with its health server (test/integration/shutdown.test.ts and the
 * metrics tests); here the two processes that had none before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/core/redis.ts';
import { JobClient } from '../../src/jobs/client.ts';
import { buildApiServer } from '../../src/producers/http/server.ts';
import { SessionKeys } from '../../src/producers/http/ui/session.ts';
import { CLI, fleetEnv, killAll, startProcess } from '../helpers/processes.ts';
import { startTestRedis, type TestRedis } from '../helpers/test-redis.ts';
import { until } from '../helpers/wait.ts';

let redis: TestRedis;

beforeAll(async () => {
  redis = await startTestRedis();
});

afterAll(async () => {
  await killAll();
  await redis.stop();
});

async function status(url: string): Promise<{ code: number; body: { status: string; reason?: string } }> {
  const response = await fetch(url);
  return { code: response.status, body: (await response.json()) as { status: string; reason?: string } };
}

describe('probes', () => {
  it('`longshore scheduler` answers /healthz and /readyz, and exits 0 on SIGTERM', async () => {
    const scheduler = startProcess(CLI, ['scheduler'], fleetEnv(redis.url));
    const line = await scheduler.waitForLine(/"healthPort":\d+/, 60_000);
    const port = /"healthPort":(\d+)/.exec(line)![1];
    const base = `http://127.0.0.1:${port}`;
    expect(await status(`${base}/healthz`)).toEqual({ code: 200, body: { status: 'ok' } });
    // Ready once both schedulers tick (the first tick runs at once).
    await until(async () => (await status(`${base}/readyz`)).code === 200 || undefined, 'scheduler ready');
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
    scheduler.kill('SIGTERM');
    expect((await scheduler.exited).code).toBe(0);
  });

  it('the API server answers /healthz and /readyz without a token, 503 once Redis is gone', async () => {
    const connection = createRedis(redis.url, 'worker');
    connection.on('error', () => undefined);
    const client = new JobClient(connection, { attempts: 1, backoffMs: 10 });
    client.onQueueError(() => undefined);
    const server = await buildApiServer({
      redis: connection,
      client,
      tokens: [],
      rateLimit: { max: 2, windowMs: 60_000 },
      sessionKeys: SessionKeys.fromSecret(undefined),
      sealer: () => {
        throw new Error('no sealing in this test');
      },
    });
    const address = await server.listen({ host: '127.0.0.1', port: 0 });
    try {
      await until(async () => (await status(`${address}/readyz`)).code === 200 || undefined, 'server ready');
      // More probes than the rate limit admits per address: probes are not counted.
      for (let i = 0; i < 4; i++)
        expect(await status(`${address}/healthz`)).toEqual({ code: 200, body: { status: 'ok' } });
      connection.disconnect();
      const down = await until(async () => {
        const s = await status(`${address}/readyz`);
        return s.code === 503 ? s : undefined;
      }, 'readyz 503 once the connection is closed');
      expect(down.body.reason).toMatch(/Redis connection/);
      expect((await status(`${address}/healthz`)).code).toBe(200);
    } finally {
      await server.close();
      await client.close().catch(() => undefined);
    }
  });
});
