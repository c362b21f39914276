/**
 * Per-app FIFO across the fleet: 3 worker processes, 3 producer processes, 5 apps × 40 jobs
 * enqueued interleaved. Effects of one app happen in enqueue order and never overlap; apps run in
 * parallel; a job that fails for good does not block its app.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/jobs/keys.ts';
import { allShards } from '../../src/jobs/shards.ts';
import { EVENTS_KEY } from '../fixtures/keys.ts';
import { fleetEnv, killAll, type Proc, ROOT, startProcess } from '../helpers/processes.ts';
import { startTestRedis, type TestRedis } from '../helpers/test-redis.ts';
import { until } from '../helpers/wait.ts';

interface Event {
  n: number;
  pid: number;
  jobId: string;
  app: string;
  seq: number;
  phase: 'start' | 'end';
  index: number;
}

interface Enqueued {
  producer: number;
  app: string;
  index: number;
  id: string;
  seq: number;
  boom: boolean;
}

const APPS = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
const PER_PRODUCER = [14, 13, 13]; // 40 jobs per app in all

describe('per-app ordering across worker processes', () => {
  let redis: TestRedis;
  let client: Redis;
  const workers: Proc[] = [];
  let enqueued: Enqueued[] = [];
  let events: Event[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    client = redis.connect();
    const env = fleetEnv(redis.url, { LONGSHORE_LOG_LEVEL: 'warn' });
    for (let i = 0; i < 3; i++)
      workers.push(startProcess(`${ROOT}test/fixtures/recording-worker.ts`, ['4'], env));
    await Promise.all(workers.map((w) => w.waitForLine(/recording-worker ready/)));

    // Every 9th job of producer 0 fails for good (PermanentError): its app must go on.
    const producers = PER_PRODUCER.map((count, p) =>
      startProcess(
        `${ROOT}test/fixtures/producer.ts`,
        [String(p), String(count), APPS.join(','), p === 0 ? '9' : '0'],
        env,
      ),
    );
    const results = await Promise.all(producers.map((p) => p.exited));
    expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
    enqueued = producers.flatMap((p) =>
      p.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Enqueued),
    );
    expect(enqueued).toHaveLength(APPS.length * 40);

    const expectedEvents = enqueued.length * 2;
    events = await until(
      async () => {
        const raw = await client.lrange(EVENTS_KEY, 0, -1);
        return raw.length >= expectedEvents ? raw.map((r) => JSON.parse(r) as Event) : undefined;
      },
      `${expectedEvents} handler events`,
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    await until(async () => (await client.llen(EVENTS_KEY)) === expectedEvents && true, 'no extra events');
  });

  afterAll(async () => {
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    await killAll();
    client?.disconnect();
    await redis?.stop();
  });

  it('applies every app’s jobs in the order the queue accepted them', () => {
    for (const app of APPS) {
      const accepted = enqueued.filter((e) => e.app === app).sort((a, b) => a.seq - b.seq);
      // Positions are unique and gap-free per app: the queue's acceptance order.
      expect(accepted.map((e) => e.seq)).toEqual(accepted.map((_, i) => i + 1));
      const starts = events.filter((e) => e.app === app && e.phase === 'start').sort((a, b) => a.n - b.n);
      expect(starts.map((e) => e.index)).toEqual(accepted.map((e) => e.index));
    }
  });

  it('keeps each producer’s own jobs in the order it enqueued them', () => {
    for (const app of APPS) {
      for (const producer of [0, 1, 2]) {
        const mine = enqueued.filter((e) => e.app === app && e.producer === producer);
        const seqs = mine.map((e) => e.seq);
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      }
    }
  });

  it('never runs two jobs of one app at the same time', () => {
    for (const app of APPS) {
      const mine = events.filter((e) => e.app === app).sort((a, b) => a.n - b.n);
      let running: string | undefined;
      for (const e of mine) {
        if (e.phase === 'start') {
          // The previous job of the app must have ended (completed or failed) first.
          const previousEnded =
            !running || mine.some((x) => x.jobId === running && x.phase === 'end' && x.n < e.n);
          expect(previousEnded, `${e.jobId} started while ${running} ran`).toBeTruthy();
          running = e.jobId;
        }
      }
    }
  });

  it('runs different apps in parallel, on several worker processes', () => {
    const intervals = new Map<string, { app: string; start: number; end: number }>();
    for (const e of events) {
      const entry = intervals.get(e.jobId) ?? {
        app: e.app,
        start: Number.POSITIVE_INFINITY,
        end: Number.POSITIVE_INFINITY,
      };
      if (e.phase === 'start') entry.start = e.n;
      else entry.end = e.n;
      intervals.set(e.jobId, entry);
    }
    const list = [...intervals.values()].filter((i) => Number.isFinite(i.end));
    const overlapping = list.some((a) =>
      list.some((b) => a.app !== b.app && a.start < b.end && b.start < a.end),
    );
    expect(overlapping).toBe(true);
    expect(new Set(events.map((e) => e.pid)).size).toBeGreaterThan(1);
  });

  it('does not let a job that failed for good block its app', async () => {
    const booms = enqueued.filter((e) => e.boom);
    expect(booms.length).toBeGreaterThan(0);
    for (const boom of booms) {
      const later = enqueued.filter((e) => e.app === boom.app && e.seq > boom.seq);
      for (const job of later) {
        expect(events.some((e) => e.jobId === job.id && e.phase === 'start')).toBe(true);
      }
    }
    // Failed once, at once: a PermanentError is not retried.
    let failed = 0;
    for (const shard of allShards()) failed += await client.zcard(`${keys.bull(shard)}failed`);
    expect(failed).toBe(booms.length);
  });
});
