/**
 * One worker process of the fleet: a BullMQ Worker on each queue shard it consumes (every shard,
 * or LONGSHORE_WORKER_SHARDS; docs/redis-cluster.md) running the JobRunner, a
 * subscription for operator cancels, metrics and health endpoints, and graceful shutdown.
 */
import { hostname } from 'node:os';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { ConnectionLog } from '../core/connection-log.ts';
import { type FleetConfig, requireSecret } from '../core/env.ts';
import { InfrastructureError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { createRedis, waitForRedis } from '../core/redis.ts';
import { BACKOFF_STRATEGY, JobClient } from '../jobs/client.ts';
import { CrossShardLanes } from '../jobs/cross-shard-lanes.ts';
import { keys, QUEUE_NAME } from '../jobs/keys.ts';
import { LaneStore } from '../jobs/ordering/lane-store.ts';
import { Sealer } from '../jobs/sealing.ts';
import { ensureShardLayout } from '../jobs/shard-guard.ts';
import { parseWorkerShards, shardPrefix } from '../jobs/shards.ts';
import { observeKubeRequests } from '../kube/request-metrics.ts';
import { ClusterConnection } from './cluster.ts';
import { backoffDelay, classifyError } from './failure.ts';
import type { HandlerRegistry } from './handler-registry.ts';
import { type HealthServer, startHealthServer } from './health-server.ts';
import { IdleCollector } from './idle-gc.ts';
import { JobRunner } from './job-runner.ts';
import { WorkerMetrics } from './metrics.ts';

export interface FleetWorkerOptions {
  config: FleetConfig;
  registry: HandlerRegistry;
  logger: Logger;
  /** Overrides LONGSHORE_CONCURRENCY. */
  concurrency?: number;
  /** Defaults to `{hostname}-{pid}`. */
  name?: string;
}

/** How long a starting worker waits for Redis before it gives up (and exits 1). */
const STARTUP_REDIS_WAIT_MS = 15_000;

/** How long after the shutdown deadline the process stops waiting for handlers that ignore their abort signal. */
export const HARD_STOP_GRACE_MS = 5_000;

export class FleetWorker {
  private shuttingDown = false;
  private closed?: Promise<void>;

  private constructor(
    readonly name: string,
    private readonly config: FleetConfig,
    private readonly logger: Logger,
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly jobs: JobClient,
    private readonly workers: Worker[],
    private readonly runner: JobRunner,
    private readonly health: HealthServer | undefined,
    private readonly cluster: ClusterConnection,
    private readonly connections: ConnectionLog,
    private readonly idle: IdleCollector,
  ) {}

  get healthPort(): number | undefined {
    return this.health?.port;
  }

  static async start(options: FleetWorkerOptions): Promise<FleetWorker> {
    const { config, logger, registry } = options;
    const name = options.name ?? `${hostname()}-${process.pid}`;
    const sealer = new Sealer(requireSecret(config), config.previousSecret);
    // Every Redis connection of the process reports into the log through one back-off.
    const connections = new ConnectionLog(logger, config.redisUrl);
    // A malformed or out-of-range shard list fails the start before any connection.
    const shards = parseWorkerShards(config.workerShards);
    const redis = connections.watch(createRedis(config.redisUrl, 'worker'), 'main');
    const jobs = new JobClient(redis, { attempts: config.jobAttempts, backoffMs: config.backoffMs });
    for (const queue of jobs.queues)
      connections.watchBull(queue, 'queue', (err) => logger.error({ err: err.message }, 'queue error'), true);
    const metrics = new WorkerMetrics(jobs.queues, redis);
    observeKubeRequests((r) => metrics.kubeRequests.observe({ verb: r.verb, code: r.code }, r.seconds));
    const self: { current?: FleetWorker } = {};

    // The health server first: a port in use fails the start at once, before waiting for Redis.
    let health: HealthServer | undefined;
    try {
      health =
        config.metricsPort >= 0
          ? await startHealthServer(
              config.metricsHost,
              config.metricsPort,
              { ready: () => self.current?.readiness() ?? { ok: false, reason: 'starting' } },
              metrics.registry,
            ).catch((err: Error) => {
              throw listenError(err, config.metricsHost, config.metricsPort);
            })
          : undefined;
      await waitForRedis(redis, config.redisUrl, STARTUP_REDIS_WAIT_MS);
      await ensureShardLayout(redis);
    } catch (err) {
      connections.mute();
      redis.disconnect();
      await health?.close();
      throw err;
    }

    const cluster = new ClusterConnection(config, logger);
    const idle = new IdleCollector({
      idleMs: config.idleGcSeconds * 1000,
      activeCount: () => runner.activeCount,
      onCollected: (c) =>
        logger.debug(
          { ms: Math.round(c.ms), heapUsedMb: Math.round(c.heapUsedAfter / 1048576) },
          'idle: heap collected',
        ),
    });
    const runner = new JobRunner({
      onJobEnded: () => idle.jobEnded(),
      lanes: new LaneStore(redis),
      registry,
      services: { config, redis, jobs, sealer, cluster: () => cluster.get() },
      queueFor: (jobId) => jobs.queueFor(jobId),
      crossShard: new CrossShardLanes(redis),
      redis,
      logger,
      metrics,
      workerName: name,
      reservationGraceMs: config.reservationGraceMs,
      fences: cluster.fences,
    });

    // One BullMQ Worker per shard consumed, each with the process's concurrency: a shard's jobs
    // never wait for another shard's (docs/redis-cluster.md, "Workers").
    const workers = shards.map((shard) => {
      const worker = new Worker(QUEUE_NAME, runner.process, {
        connection: redis,
        prefix: shardPrefix(shard),
        name,
        concurrency: options.concurrency ?? config.concurrency,
        lockDuration: config.lockDurationMs,
        stalledInterval: config.stalledIntervalMs,
        // A job whose worker died is handed to another this many times before it fails as stuck.
        maxStalledCount: config.maxStalledCount,
        autorun: false,
        settings: {
          backoffStrategy: (attemptsMade, type, err, job) => {
            if (type !== BACKOFF_STRATEGY) return 0;
            const base = (job?.opts.backoff as { delay?: number } | undefined)?.delay ?? config.backoffMs;
            return backoffDelay(attemptsMade, base, classifyError(err).retryAfterMs);
          },
        },
      });
      // BullMQ's own connections (its duplicate of `redis` and the blocking one) report here.
      connections.watchBull(worker, 'worker', (err) => logger.error({ err: err.message }, 'worker error'));
      worker.on('stalled', (jobId) =>
        logger.warn({ jobId }, 'job stalled (its worker stopped renewing the lock); moved back to wait'),
      );
      worker.on('failed', (job, err) => {
        // BullMQ fails a job that stalled too often when a worker next picks it, without running
        // the processor (the job's deferredFailure): its lane's end is recorded here.
        if (job?.deferredFailure && err.message === job.deferredFailure)
          runner.stalledOut(job, config.maxStalledCount);
      });
      worker.on('lockRenewalFailed', (jobIds) => {
        for (const id of jobIds) runner.abort(id, 'lock-lost', 'the job lock could not be renewed');
      });
      return worker;
    });

    // Subscribed once connected: SUBSCRIBE sent during the connection's ready check fails it.
    const subscriber = connections.watch(redis.duplicate(), 'cancel-subscriber');
    try {
      await waitForRedis(subscriber, config.redisUrl, STARTUP_REDIS_WAIT_MS);
    } catch (err) {
      // Redis went away during the start: leave nothing connecting behind.
      connections.mute();
      subscriber.disconnect();
      await Promise.all(workers.map((w) => w.close(true).catch(() => undefined)));
      redis.disconnect();
      await health?.close();
      throw err;
    }
    await subscriber.subscribe(keys.cancelChannel);
    subscriber.on('message', (_channel, jobId: string) => {
      if (runner.abort(jobId, 'cancel', 'cancelled by an operator'))
        logger.warn({ jobId }, 'cancelling job on request');
    });

    const fleet = new FleetWorker(
      name,
      config,
      logger,
      redis,
      subscriber,
      jobs,
      workers,
      runner,
      health,
      cluster,
      connections,
      idle,
    );
    self.current = fleet;
    for (const worker of workers) {
      void worker
        .run()
        .catch((err: Error) => logger.error({ err: err.message }, 'worker loop ended with an error'));
    }
    await Promise.all(workers.map((w) => w.waitUntilReady()));
    logger.info(
      {
        worker: name,
        concurrency: workers[0]?.concurrency,
        shards,
        handlers: registry.types(),
        healthPort: health?.port,
      },
      'worker started',
    );
    return fleet;
  }

  readiness(): { ok: boolean; reason?: string } {
    if (this.shuttingDown) return { ok: false, reason: 'shutting down' };
    if (this.redis.status !== 'ready') return { ok: false, reason: `redis ${this.redis.status}` };
    if (!this.workers.every((w) => w.isRunning())) return { ok: false, reason: 'worker not running' };
    return { ok: true };
  }

  /**
   * Stops taking jobs and lets active ones finish. At the deadline, handlers still running are
   * aborted and their jobs handed back to the queue (no attempt consumed) for another worker.
   */
  shutdown(deadlineMs = this.config.shutdownDeadlineMs): Promise<void> {
    this.closed ??= this.doShutdown(deadlineMs);
    return this.closed;
  }

  private async doShutdown(deadlineMs: number): Promise<void> {
    this.shuttingDown = true;
    this.idle.stop();
    this.logger.info({ active: this.runner.activeCount, deadlineMs }, 'shutting down: taking no new jobs');
    const closing = Promise.all(this.workers.map((w) => w.close()));
    const deadline = setTimeout(() => {
      const aborted = this.runner.abortAll('shutdown', `worker ${this.name} is shutting down`);
      if (aborted > 0) this.logger.warn({ aborted }, 'shutdown deadline reached: handing running jobs back');
    }, deadlineMs);
    let hardStop: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'gave-up'>((resolve) => {
      hardStop = setTimeout(() => resolve('gave-up'), deadlineMs + HARD_STOP_GRACE_MS);
    });
    const outcome = await Promise.race([closing.then(() => 'closed' as const), gaveUp]);
    clearTimeout(deadline);
    clearTimeout(hardStop);
    if (outcome === 'gave-up') {
      this.logger.error(
        { active: this.runner.activeCount },
        'handlers ignored the abort; leaving their jobs to stall recovery',
      );
    }
    await this.cluster
      .stop()
      .catch((err: Error) => this.logger.warn({ err: err.message }, 'closing cluster caches failed'));
    // Closing connections is not an outage.
    this.connections.mute();
    await this.subscriber.quit().catch(() => undefined);
    await this.jobs.close().catch(() => undefined);
    if (outcome === 'gave-up') this.redis.disconnect();
    else await this.redis.quit().catch(() => undefined);
    await this.health?.close();
    this.logger.info('worker stopped');
  }
}

/** A listen failure of the health server as one line naming the address and the setting. */
function listenError(err: Error, host: string, port: number): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'EADDRINUSE'
      ? 'the port is in use by another process'
      : code === 'EACCES'
        ? 'permission denied'
        : code === 'EADDRNOTAVAIL'
          ? 'no such address on this machine'
          : err.message;
  return new InfrastructureError(
    `cannot serve health and metrics on ${host}:${port}: ${why}; ` +
      'set LONGSHORE_METRICS_PORT to a free port (0 picks one) or LONGSHORE_METRICS_HOST to another address',
    { cause: err },
  );
}
