/**
 * No-op throughput of the longshore fleet on a real 3-primary Redis Cluster with 1, 2 and 4 queue
 * shards (docs/redis-cluster.md): the same jobs, apps, worker processes and concurrency for each K,
 * on a fresh cluster each time, shard i's hash tag placed on primary i mod 3. With one shard every
 * key is on one primary (today's layout); more shards spread the lanes over the primaries.
 *
 *   throughput: N jobs queued first, then drained; jobs/s from the first job started to the last finished
 *
 * On one machine the primaries share its cores with the workers, so the figure shows that sharding
 * costs nothing and where the single primary saturates, not the gain of separate machines.
 *
 * Usage: npm run bench -- cluster [--jobs N] [--apps A] [--workers W] [--concurrency C] [--runs R]
 */
import { createRedis } from '../src/core/redis.ts';
import { JobClient } from '../src/jobs/client.ts';
import { allShards, setShardCount, shardPrefix } from '../src/jobs/shards.ts';
import { startRedisCluster } from '../test/helpers/redis-cluster.ts';
import { until } from '../test/helpers/wait.ts';
import { startBenchWorkers } from './fixtures/worker-processes.ts';

const SHARD_COUNTS = [1, 2, 4];

interface Options {
  jobs: number;
  apps: number;
  workers: number;
  concurrency: number;
  runs: number;
}

function parseArgs(argv: string[]): Options {
  const get = (name: string, fallback: number) => {
    const i = argv.indexOf(`--${name}`);
    const value = i >= 0 ? Number(argv[i + 1]) : fallback;
    if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive whole number`);
    return value;
  };
  return {
    jobs: get('jobs', 2000),
    apps: get('apps', 100),
    workers: get('workers', 2),
    concurrency: get('concurrency', 8),
    runs: get('runs', 1),
  };
}

async function run(shards: number, options: Options): Promise<{ throughput: number; primaries: number }> {
  setShardCount(shards);
  const cluster = await startRedisCluster();
  const conn = createRedis(cluster.url, 'worker');
  const client = new JobClient(conn, { attempts: 3, backoffMs: 1000 });
  client.onQueueError(() => undefined);
  try {
    for (const shard of allShards())
      await cluster.placeKey(shardPrefix(shard), cluster.ports[shard % cluster.ports.length]!);
    const primaries = new Set(await Promise.all(allShards().map((s) => cluster.primaryOf(shardPrefix(s)))))
      .size;
    for (let i = 0; i < options.jobs; i++)
      await client.enqueue(
        'scale',
        { app: `app-${i % options.apps}`, processes: { web: i % 1000 } },
        'bench',
      );
    // The same concurrency per process for every K: a worker runs one BullMQ Worker per shard.
    const perShard = Math.max(1, Math.round(options.concurrency / shards));
    const workers = await startBenchWorkers({
      script: 'bench/fixtures/noop-fleet-worker.ts',
      count: options.workers,
      concurrency: perShard,
      redisUrl: cluster.url,
      env: { LONGSHORE_QUEUE_SHARDS: String(shards) },
    });
    await until(
      async () => {
        let completed = 0;
        for (const queue of client.queues) {
          const counts = await queue.getJobCounts('completed', 'failed');
          if ((counts.failed ?? 0) > 0)
            throw new Error(`${counts.failed} job(s) failed during the benchmark`);
          completed += counts.completed ?? 0;
        }
        return completed >= options.jobs;
      },
      `${options.jobs} benchmark jobs to complete`,
      { timeoutMs: 300_000, intervalMs: 100, errors: 'throw' },
    );
    const done = (await Promise.all(client.queues.map((q) => q.getJobs(['completed'], 0, -1)))).flat();
    const started = Math.min(...done.map((j) => j.processedOn ?? Number.POSITIVE_INFINITY));
    const finished = Math.max(...done.map((j) => j.finishedOn ?? 0));
    await workers.stop();
    return { throughput: options.jobs / ((finished - started) / 1000), primaries };
  } finally {
    await client.close();
    conn.disconnect();
    await cluster.stop();
  }
}

export async function benchClusterShards(argv: string[]): Promise<void> {
  const options = parseArgs(argv);
  console.log(
    `queue shards on a 3-primary Redis Cluster: ${options.jobs} no-op jobs over ${options.apps} apps, ` +
      `${options.workers} worker processes × concurrency ${options.concurrency} (split over the shards); median of ${options.runs} run(s)`,
  );
  const rows: string[][] = [];
  let base = 0;
  for (const shards of SHARD_COUNTS) {
    const results = [];
    for (let r = 0; r < options.runs; r++) results.push(await run(shards, options));
    const throughputs = results.map((x) => x.throughput).sort((a, b) => a - b);
    const median = throughputs[Math.floor(throughputs.length / 2)]!;
    if (shards === 1) base = median;
    rows.push([String(shards), String(results[0]!.primaries), median.toFixed(0), (median / base).toFixed(2)]);
  }
  const header = ['shards', 'primaries used', 'jobs/s', 'vs 1 shard'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  console.log(
    `reproduce: npm run bench -- cluster --jobs ${options.jobs} --apps ${options.apps} --workers ${options.workers} --concurrency ${options.concurrency} --runs ${options.runs}`,
  );
}
