/**
 * Prometheus metrics of one worker process, served on /metrics by the health server.
 * Queue depth and pending lanes are read from Redis at scrape time, so they are fleet-wide.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { keys } from '../jobs/keys.ts';
import { lanesByShard } from '../jobs/shards.ts';
import { allStatusLanes } from '../jobs/status.ts';

export type JobMetricOutcome =
  | 'completed'
  | 'failed'
  | 'retried'
  | 'superseded'
  | 'invalid'
  | 'handed_back'
  | 'cancelled'
  | 'duplicate';

export class WorkerMetrics {
  readonly registry = new Registry();

  readonly jobs = new Counter({
    name: 'longshore_jobs_total',
    help: 'Jobs handled by this worker, by type and outcome',
    labelNames: ['type', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly duration = new Histogram({
    name: 'longshore_job_duration_seconds',
    help: 'Time a handler ran, by type and outcome',
    labelNames: ['type', 'outcome'] as const,
    buckets: [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300, 900],
    registers: [this.registry],
  });

  readonly startDelay = new Histogram({
    name: 'longshore_job_start_delay_seconds',
    help: 'From enqueue to the job starting to run (queueing plus waiting for its lane)',
    labelNames: ['type'] as const,
    buckets: [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300, 900],
    registers: [this.registry],
  });

  readonly orderingWaits = new Counter({
    name: 'longshore_ordering_waits_total',
    help: 'Times a job was picked while an earlier job of its lane was unfinished, and parked',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly kubeRequests = new Histogram({
    name: 'longshore_kube_request_duration_seconds',
    help: 'Kubernetes API requests of this worker by HTTP verb and status code (error: no response), and their latency',
    labelNames: ['verb', 'code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly active = new Gauge({
    name: 'longshore_worker_active_jobs',
    help: 'Jobs running in this worker process',
    registers: [this.registry],
  });

  constructor(queues: readonly Queue[], redis: Redis) {
    collectDefaultMetrics({ register: this.registry, prefix: 'longshore_process_' });
    new Gauge({
      name: 'longshore_queue_depth',
      help: 'Jobs in the queue by state (fleet-wide)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      async collect() {
        const perShard = await Promise.all(
          queues.map((queue) =>
            queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'failed', 'completed'),
          ),
        );
        const counts: Record<string, number> = {};
        for (const shard of perShard)
          for (const [state, n] of Object.entries(shard)) counts[state] = (counts[state] ?? 0) + n;
        for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
      },
    });
    new Gauge({
      name: 'longshore_lanes_pending',
      help: 'Lanes (apps, storage entries) with unfinished jobs (fleet-wide)',
      registers: [this.registry],
      async collect() {
        // One pipeline per queue shard: a pipeline stays in one Redis Cluster slot.
        const lanes = lanesByShard(await allStatusLanes(redis));
        let busy = 0;
        for (const group of lanes.values()) {
          const pipeline = redis.pipeline();
          for (const lane of group) pipeline.zcard(keys.lanePending(lane));
          const counts = (await pipeline.exec()) ?? [];
          busy += counts.filter(([, count]) => Number(count) > 0).length;
        }
        this.set(busy);
      },
    });
  }
}
