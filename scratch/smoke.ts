import { loadFleetConfig } from '../src/core/env.ts';
import { createLogger } from '../src/core/logger.ts';
import { createRedis } from '../src/core/redis.ts';
import { startPrivateRedis } from '../src/dev/private-redis.ts';
import { JobClient } from '../src/jobs/client.ts';
import { FleetWorker } from '../src/workers/fleet-worker.ts';
import { HandlerRegistry } from '../src/workers/handler-registry.ts';

const redis = await startPrivateRedis();
const config = loadFleetConfig({
  REDIS_URL: redis.url,
  LONGSHORE_SECRET: 'x'.repeat(40),
  LONGSHORE_METRICS_PORT: '0',
  LONGSHORE_LOG_LEVEL: 'warn',
});
const events: string[] = [];
const registry = new HandlerRegistry().register('scale', async (ctx) => {
  const p = ctx.payload as { app: string; processes: Record<string, number> };
  events.push(`start ${p.app} ${p.processes.web}`);
  await new Promise((r) => setTimeout(r, Math.random() * 10));
  events.push(`end ${p.app} ${p.processes.web}`);
  return {};
});
const logger = createLogger('warn');
const w1 = await FleetWorker.start({ config, registry, logger, name: 'w1' });
const w2 = await FleetWorker.start({ config, registry, logger, name: 'w2' });
const client = new JobClient(createRedis(redis.url, 'producer'), { attempts: 3, backoffMs: 100 });
const t0 = Date.now();
for (let i = 0; i < 20; i++)
  for (const app of ['a', 'b', 'c', 'd', 'e'])
    await client.enqueue('scale', { app, processes: { web: i } }, 'smoke');
const deadline = Date.now() + 30000;
while (events.length < 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
console.log('events', events.length, 'ms', Date.now() - t0);
for (const app of ['a', 'b', 'c', 'd', 'e']) {
  const seq = events.filter((e) => e.split(' ')[1] === app);
  const ok = seq.every((e, i) => e === `${i % 2 ? 'end' : 'start'} ${app} ${Math.floor(i / 2)}`);
  console.log(app, ok ? 'ordered' : 'OUT OF ORDER', seq.slice(0, 6).join('|'));
}
console.log(await client.queue.getJobCounts());
await Promise.all([w1.shutdown(), w2.shutdown()]);
await client.close();
await redis.stop();
process.exit(0);
