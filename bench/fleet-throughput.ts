/**
 * Throughput and latency of no-op jobs through the longshore fleet against bare BullMQ on the
 * same Redis, with the same job count, worker processes and concurrency, in the same run:
 *
 *   bare BullMQ      a Worker with a no-op processor, no ordering layer
 *   ordering only    BullMQ + longshore's lane protocol (acquire, finish), nothing else
 *   longshore fleet  the real worker: validation, lanes, attempt history, projection, metrics
 *
 *   throughput: N jobs queued first, then drained; jobs/s over the jobs after the first `--warmup`
 *               (from the warm-up's last completion to the last job's): a worker process's first
 *               jobs pay for compiling its code (V8 tiers up, schemas are built on first use),
 *               which a long-running worker pays once, and with a drain of a second or two that
 *               start dominated the figure
 *   latency:    jobs enqueued at a steady rate below capacity; enqueue call → completion, p50 and p99
 *   CPU:        the worker processes' and redis-server's CPU time per job over the same drain after
 *               the warm-up (/proc/<pid>/stat and INFO cpu, read when the completed count passes
 *               the warm-up and the end, polled every 50 ms): whether a system is bound by CPU
 *               or, with CPU to spare, by the round trips its jobs wait for
 *
 * This machine's timings wander by ±25% between identical runs, so every configuration runs
 * `--runs` times (alternating systems) and the median is printed.
 *
 * Usage: npm run bench -- fleet [--jobs N] [--warmup W] [--apps A] [--concurrency C] [--rate R]
 *                               [--latency-jobs M] [--runs K]
 */
import { readFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { loadFleetConfig } from '../src/core/env.ts';
import { startPrivateRedis } from '../src/dev/private-redis.ts';
import { JobClient } from '../src/jobs/client.ts';
import { until } from '../test/helpers/wait.ts';
import { percentile } from './fixtures/report.ts';
import { startBenchWorkers } from './fixtures/worker-processes.ts';

type Kind = 'bare' | 'ordering' | 'fleet';
const LABEL: Record<Kind, string> = {
  bare: 'bare BullMQ',
  ordering: 'ordering only',
  fleet: 'longshore fleet',
};
const SCRIPT: Record<Kind, string> = {
  bare: 'bench/fixtures/bare-worker.ts',
  ordering: 'bench/fixtures/ordering-only-worker.ts',
  fleet: 'bench/fixtures/noop-fleet-worker.ts',
};

interface Options {
  jobs: number;
  warmup: number;
  apps: number;
  concurrency: number;
  rate: number;
  latencyJobs: number;
  runs: number;
}

function parseArgs(argv: string[]): Options {
  const get = (name: string, fallback: number) => {
    const i = argv.indexOf(`--${name}`);
    const value = i >= 0 ? Number(argv[i + 1]) : fallback;
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
    return value;
  };
  return {
    jobs: get('jobs', 6000),
    warmup: get('warmup', 1000),
    apps: get('apps', 100),
    concurrency: get('concurrency', loadFleetConfig({}).concurrency),
    rate: get('rate', 200),
    latencyJobs: get('latency-jobs', 600),
    runs: get('runs', 3),
  };
}

interface Result {
  throughput: number;
  /** CPU time per job over the timed drain, µs: the worker processes together, and Redis. */
  workerCpuUs: number;
  redisCpuUs: number;
  p50: number;
  p99: number;
  parkedPct: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function waitForCompleted(queue: Queue, count: number): Promise<void> {
  await until(
    async () => {
      const { completed = 0, failed = 0 } = await queue.getJobCounts('completed', 'failed');
      if (failed > 0) throw new Error(`${failed} job(s) failed during the benchmark`);
      return completed >= count;
    },
    `${count} benchmark jobs to complete`,
    { timeoutMs: 300_000, intervalMs: 50, errors: 'throw' },
  );
}

/** CPU time a process has used, ms (Linux /proc; utime + stime in clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function redisCpuMs(conn: Redis): Promise<number> {
  const info = await conn.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
}

async function run(kind: Kind, workers: number, options: Options): Promise<Result> {
  const redis = await startPrivateRedis({ appendfsync: 'everysec' });
  const conn = new Redis(redis.url, { maxRetriesPerRequest: null });
  const fleetClient = new JobClient(conn, { attempts: 3, backoffMs: 1000 });
  const bareQueue = new Queue('bare', { connection: conn, prefix: '{bare}' });
  const queue = kind === 'bare' ? bareQueue : fleetClient.queue;
  const enqueue = async (i: number) => {
    const app = `app-${i % options.apps}`;
    if (kind === 'bare') {
      await bareQueue.add(
        'scale',
        { app, processes: { web: i % 1000 }, enqueuedAt: Date.now() },
        { attempts: 3, removeOnComplete: { count: 100_000 } },
      );
    } else {
      await fleetClient.enqueue('scale', { app, processes: { web: i % 1000 } }, 'bench');
    }
  };
  try {
    // Throughput: queue everything, then let the workers drain it.
    for (let i = 0; i < options.jobs; i++) await enqueue(i);
    const fleet = await startBenchWorkers({
      script: SCRIPT[kind],
      count: workers,
      concurrency: options.concurrency,
      redisUrl: redis.url,
    });
    await waitForCompleted(queue, options.warmup);
    const cpuAt = async () => ({
      worker: fleet.pids.reduce((sum, pid) => sum + processCpuMs(pid), 0),
      redis: await redisCpuMs(conn),
      completed: (await queue.getJobCounts('completed')).completed ?? 0,
    });
    const cpu0 = await cpuAt();
    await waitForCompleted(queue, options.jobs);
    const cpu1 = await cpuAt();
    const drained = Math.max(1, cpu1.completed - cpu0.completed);
    const done = await queue.getJobs(['completed'], 0, -1);
    const ends = done.map((j) => j.finishedOn ?? 0).sort((a, b) => a - b);
    const warmedAt = ends[options.warmup - 1]!;
    const parked = done.filter((j) => j.attemptsStarted > 1).length;
    const throughput = (options.jobs - options.warmup) / ((ends.at(-1)! - warmedAt) / 1000);

    // Latency: a steady rate below capacity, from the producer's call to completion.
    await queue.clean(0, 1_000_000, 'completed');
    const interval = 1000 / options.rate;
    const t0 = performance.now();
    for (let i = 0; i < options.latencyJobs; i++) {
      const wait = t0 + i * interval - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await enqueue(options.jobs + i);
    }
    await waitForCompleted(queue, options.latencyJobs);
    const latencies = (await queue.getJobs(['completed'], 0, -1))
      .map((j) => (j.finishedOn ?? 0) - ((j.data as { enqueuedAt?: number }).enqueuedAt ?? j.timestamp))
      .sort((a, b) => a - b);
    await fleet.stop();
    return {
      throughput,
      workerCpuUs: ((cpu1.worker - cpu0.worker) * 1000) / drained,
      redisCpuUs: ((cpu1.redis - cpu0.redis) * 1000) / drained,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      parkedPct: (100 * parked) / options.jobs,
    };
  } finally {
    await bareQueue.close();
    await fleetClient.close();
    conn.disconnect();
    await redis.stop();
  }
}

export async function benchFleetThroughput(argv: string[]): Promise<void> {
  const options = parseArgs(argv);
  if (options.warmup >= options.jobs) throw new Error('--warmup must be below --jobs');
  console.log(
    `fleet throughput: ${options.jobs} no-op jobs over ${options.apps} apps (the first ${options.warmup} warm up, not timed), concurrency ${options.concurrency} per worker process; ` +
      `latency at ${options.rate} jobs/s for ${options.latencyJobs} jobs; median of ${options.runs} runs`,
  );
  const kinds: Kind[] = ['bare', 'ordering', 'fleet'];
  const rows: { kind: Kind; workers: number; result: Result }[] = [];
  for (const workers of [1, 2]) {
    const results = new Map<Kind, Result[]>(kinds.map((k) => [k, []]));
    for (let r = 0; r < options.runs; r++)
      for (const kind of kinds) results.get(kind)!.push(await run(kind, workers, options));
    for (const kind of kinds) {
      const list = results.get(kind)!;
      rows.push({
        kind,
        workers,
        result: {
          throughput: median(list.map((x) => x.throughput)),
          workerCpuUs: median(list.map((x) => x.workerCpuUs)),
          redisCpuUs: median(list.map((x) => x.redisCpuUs)),
          p50: median(list.map((x) => x.p50)),
          p99: median(list.map((x) => x.p99)),
          parkedPct: median(list.map((x) => x.parkedPct)),
        },
      });
    }
  }
  const header = [
    'system',
    'workers',
    'jobs/s',
    'vs bare',
    'worker CPU µs/job',
    'Redis CPU µs/job',
    'p50 ms',
    'p99 ms',
    'parked',
  ];
  const table = rows.map(({ kind, workers, result }) => {
    const bare = rows.find((b) => b.kind === 'bare' && b.workers === workers)!.result;
    return [
      LABEL[kind],
      String(workers),
      result.throughput.toFixed(0),
      (result.throughput / bare.throughput).toFixed(2),
      result.workerCpuUs.toFixed(0),
      result.redisCpuUs.toFixed(0),
      result.p50.toFixed(1),
      result.p99.toFixed(1),
      `${result.parkedPct.toFixed(1)}%`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  for (const row of [header, ...table])
    console.log(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  // Issue 19's target: the whole fleet worker at least 80 % of bare BullMQ, same run, same concurrency.
  for (const workers of [1, 2]) {
    const of = (kind: Kind) => rows.find((r) => r.kind === kind && r.workers === workers)!.result.throughput;
    const ratio = of('fleet') / of('bare');
    console.log(
      `${workers} worker(s): bare BullMQ ${of('bare').toFixed(0)} jobs/s, fleet worker ${of('fleet').toFixed(0)} jobs/s, ` +
        `ratio ${ratio.toFixed(2)}, target >= ${FLEET_TARGET.toFixed(2)}: ${ratio >= FLEET_TARGET ? 'PASS' : 'FAIL'}`,
    );
  }
}

/** The fleet worker's no-op throughput must reach this share of bare BullMQ's (issue 19). */
const FLEET_TARGET = 0.8;
