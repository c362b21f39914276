/**
 * The sync scheduler against a real redis-server: many schedulers enqueue one sync per interval
 * between them, stop() stops, a Redis outage is reported and survived, an enqueue that failed
 * frees the interval, and `longshore scheduler` runs as a process of its own.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadFleetConfig } from '../../src/core/env.ts';
import { createRedis } from '../../src/core/redis.ts';
import { type PrivateRedis, startPrivateRedis } from '../../src/dev/private-redis.ts';
import { JobClient } from '../../src/jobs/client.ts';
import type { JobEnvelope } from '../../src/jobs/envelope.ts';
import { schedulerKey } from '../../src/producers/scheduler/interval-lock.ts';
import { type SchedulerTick, SyncScheduler } from '../../src/producers/scheduler/sync-scheduler.ts';
import { CLI, fleetEnv, killAll, runCli, startProcess } from '../helpers/processes.ts';
import { stays, until } from '../helpers/wait.ts';

const INTERVAL_MS = 300;
const KEY = schedulerKey('sync');

describe('sync scheduler', () => {
  let redis: PrivateRedis;
  let inspect: Redis;
  let jobs: JobClient;
  const started: SyncScheduler[] = [];

  /** A scheduler on a connection of its own, recording its ticks. */
  function scheduler(
    id: string,
    intervalMs = INTERVAL_MS,
  ): { scheduler: SyncScheduler; ticks: SchedulerTick[] } {
    const config = loadFleetConfig({ REDIS_URL: redis.url, LONGSHORE_SYNC_INTERVAL_MS: String(intervalMs) });
    const s = SyncScheduler.fromConfig(config, undefined, id);
    const ticks: SchedulerTick[] = [];
    s.on('tick', (t) => ticks.push(t));
    started.push(s);
    return { scheduler: s, ticks };
  }

  /** Sync jobs in the queue enqueued by schedulers whose id starts with `prefix`. */
  async function syncJobs(prefix: string) {
    const all = await jobs.queue.getJobs([
      'waiting',
      'prioritized',
      'delayed',
      'active',
      'completed',
      'failed',
    ]);
    return all.filter(
      (j) => j.name === 'sync' && (j.data as JobEnvelope).enqueuedBy.startsWith(`scheduler:${prefix}`),
    );
  }

  beforeAll(async () => {
    redis = await startPrivateRedis();
    inspect = createRedis(redis.url, 'worker');
    inspect.on('error', () => undefined);
    jobs = new JobClient(createRedis(redis.url, 'worker'), { attempts: 1, backoffMs: 50 });
    jobs.connection.on('error', () => undefined);
    jobs.queue.on('error', () => undefined);
  });

  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
    await killAll();
    await inspect.del(KEY).catch(() => undefined);
  });

  afterAll(async () => {
    await jobs.close().catch(() => undefined);
    jobs.connection.disconnect();
    inspect.disconnect();
    await redis.stop();
  });

  it('reads LONGSHORE_SYNC_INTERVAL_MS: 5 minutes by default, 0 turns it off, nonsense is refused', () => {
    expect(loadFleetConfig({}).syncIntervalMs).toBe(300_000);
    expect(loadFleetConfig({ LONGSHORE_SYNC_INTERVAL_MS: '0' }).syncIntervalMs).toBe(0);
    expect(loadFleetConfig({ LONGSHORE_SYNC_INTERVAL_MS: '60000' }).syncIntervalMs).toBe(60_000);
    expect(loadFleetConfig({}).pruneIntervalMs).toBe(86_400_000);
    expect(loadFleetConfig({ LONGSHORE_PRUNE_INTERVAL_MS: '0' }).pruneIntervalMs).toBe(0);
    expect(() => loadFleetConfig({ LONGSHORE_PRUNE_INTERVAL_MS: '1d' })).toThrow(
      /LONGSHORE_PRUNE_INTERVAL_MS/,
    );
    expect(() => loadFleetConfig({ LONGSHORE_SYNC_INTERVAL_MS: '5m' })).toThrow(/LONGSHORE_SYNC_INTERVAL_MS/);
    expect(() => loadFleetConfig({ LONGSHORE_SYNC_INTERVAL_MS: '10' })).toThrow(
      /LONGSHORE_SYNC_INTERVAL_MS: expected 0 \(off\) or a whole number from 100/,
    );
  });

  it('enqueues one sync per interval between two schedulers, not two', async () => {
    // Exact counts per interval are checked on a manual clock (test/unit/sync-scheduler.test.ts);
    // here two schedulers share the real key script and real time.
    const a = scheduler('pair-a');
    const b = scheduler('pair-b');
    const begin = Date.now();
    a.scheduler.start();
    b.scheduler.start();
    const ticks = () => [...a.ticks, ...b.ticks];
    const enqueued = () => ticks().filter((t) => t.outcome === 'enqueued');
    // Both tick, whoever comes second in an interval stands back, and syncs keep coming: at least
    // three within 2 s (an interval is 300 ms).
    await until(
      () =>
        enqueued().length >= 3 &&
        a.ticks.length > 1 &&
        b.ticks.length > 1 &&
        ticks().some((t) => t.outcome === 'skipped'),
      'three syncs, both schedulers ticking and one standing back',
      { timeoutMs: 2_000, intervalMs: 20 },
    );
    await Promise.all([a.scheduler.stop(), b.scheduler.stop()]);
    const elapsed = Date.now() - begin;

    expect(ticks().filter((t) => t.outcome === 'error')).toEqual([]);
    const syncs = enqueued().sort((x, y) => x.at - y.at);
    // Never more than one per interval.
    expect(syncs.length).toBeLessThanOrEqual(Math.floor(elapsed / INTERVAL_MS) + 1);
    const gaps = syncs.slice(1).map((t, i) => t.at - syncs[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThan(INTERVAL_MS / 2);

    // What the ticks report is what the queue holds: sync jobs in the fleet lane, named by scheduler.
    const queued = await syncJobs('pair-');
    expect(queued.map((j) => j.id).sort()).toEqual(
      syncs.map((t) => (t.outcome === 'enqueued' ? t.jobId : '')).sort(),
    );
    for (const job of queued) {
      expect(job.id).toMatch(/^fleet\.\d+$/);
      expect(job.data).toMatchObject({ payload: {}, lane: 'fleet' });
    }
  });

  it('stops ticking on stop()', async () => {
    const one = scheduler('stopper');
    one.scheduler.start();
    await until(() => one.ticks.some((t) => t.outcome === 'enqueued'), 'a first sync');
    await one.scheduler.stop();
    expect(one.scheduler.running).toBe(false);
    const ticksAtStop = one.ticks.length;
    const jobsAtStop = (await syncJobs('stopper')).length;

    await stays(
      async () => one.ticks.length === ticksAtStop && (await syncJobs('stopper')).length === jobsAtStop,
      INTERVAL_MS * 4,
      'no tick and no sync after stop()',
      { intervalMs: 100 },
    );
    // Nobody renews the key any more: it expires within an interval.
    expect(await inspect.exists(KEY)).toBe(0);
  });

  it('does nothing when the interval is 0', async () => {
    const off = scheduler('off', 0);
    off.scheduler.start();
    expect(off.scheduler.enabled).toBe(false);
    expect(off.scheduler.running).toBe(false);
    await stays(() => off.ticks.length === 0, INTERVAL_MS, 'no tick with the interval 0');
    expect(off.ticks).toEqual([]);
    expect(await inspect.exists(KEY)).toBe(0);
  });

  it('frees the interval when the sync could not be enqueued', async () => {
    const connection = createRedis(redis.url, 'producer');
    try {
      const failing = new SyncScheduler({
        redis: connection,
        jobs: {
          enqueue: async () => {
            throw new Error('enqueue refused');
          },
        },
        intervalMs: 60_000,
        id: 'failing',
      });
      const tick = await failing.tick();
      expect(tick).toMatchObject({ outcome: 'error', consecutiveErrors: 1 });
      expect(tick.outcome === 'error' && tick.error.message).toBe('enqueue refused');
      // The next tick, here or in another process, may try again at once.
      expect(await inspect.exists(KEY)).toBe(0);

      const working = scheduler('after-failure', 60_000);
      expect(await working.scheduler.tick()).toMatchObject({ outcome: 'enqueued' });
      expect(await failing.tick()).toMatchObject({ outcome: 'skipped' });
      // Held for the rest of the interval, by the one that enqueued.
      expect(await inspect.get(KEY)).toBe('after-failure');
      expect(await inspect.pttl(KEY)).toBeGreaterThan(50_000);
    } finally {
      connection.disconnect();
    }
  });

  it('logs and survives a Redis outage, and enqueues again once Redis is back', async () => {
    const one = scheduler('outage');
    one.scheduler.start();
    await until(() => one.ticks.some((t) => t.outcome === 'enqueued'), 'a first sync');

    await redis.kill();
    try {
      await until(() => one.ticks.some((t) => t.outcome === 'error'), 'a failed tick while Redis is down', {
        timeoutMs: 20_000,
      });
      expect(one.scheduler.running).toBe(true);
    } finally {
      await redis.start();
    }
    const backAt = Date.now();
    await until(
      () => one.ticks.some((t) => t.outcome === 'enqueued' && t.at >= backAt),
      'a sync enqueued after Redis came back',
      { timeoutMs: 20_000 },
    );
    const failed = one.ticks.find((t) => t.outcome === 'error');
    expect(failed?.outcome === 'error' && failed.error.message).toBeTruthy();
  });

  it('runs as `longshore scheduler`, beside another scheduler, and exits 0 on SIGTERM', async () => {
    const env = fleetEnv(redis.url, { LONGSHORE_SYNC_INTERVAL_MS: String(INTERVAL_MS) });
    const first = startProcess(CLI, ['scheduler'], env);
    const second = startProcess(CLI, ['scheduler'], env);
    await first.waitForLine(/sync scheduler started/, 60_000);
    await second.waitForLine(/sync scheduler started/, 60_000);
    // Scheduler ids are `{host}-{pid}`: count only what these two processes enqueued.
    const fromProcesses = async () =>
      (await jobs.queue.getJobs(['waiting'])).filter(
        (j) =>
          j.name === 'sync' &&
          [first.pid, second.pid].some((pid) => (j.data as JobEnvelope).enqueuedBy.endsWith(`-${pid}`)),
      );
    await until(
      async () => (await fromProcesses()).length >= 3 || undefined,
      'three syncs from the processes',
    );
    first.kill('SIGTERM');
    second.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    expect((await second.exited).code).toBe(0);
    expect(first.output()).toMatch(/sync scheduler stopped/);
    // The daily prune (default 24 h) runs in the same process: one prune for both processes.
    const prunes = (await jobs.queue.getJobs(['waiting'])).filter(
      (j) =>
        j.name === 'prune' &&
        [first.pid, second.pid].some((pid) => (j.data as JobEnvelope).enqueuedBy.endsWith(`-${pid}`)),
    );
    expect(prunes).toHaveLength(1);
    expect(first.output() + second.output()).toMatch(/prune scheduler started/);

    const off = await runCli(['scheduler'], {
      ...env,
      LONGSHORE_SYNC_INTERVAL_MS: '0',
      LONGSHORE_PRUNE_INTERVAL_MS: '0',
    });
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(/LONGSHORE_SYNC_INTERVAL_MS and LONGSHORE_PRUNE_INTERVAL_MS are 0/);
  });
});
