/**
 * The sync scheduler: enqueues a `sync` job (which enqueues a `reconcile` per app) every interval.
 * The same loop, given `job: 'prune'`, enqueues the daily fleet-wide `prune` under its own key
 * `{longshore}:scheduler:prune` (LONGSHORE_PRUNE_INTERVAL_MS, default 24 h).
 * Safe to run in any number of processes at once: before enqueuing, a scheduler takes the Redis key
 * `{longshore}:scheduler:sync` with `SET NX PX interval`, so the fleet enqueues one sync per
 * interval however many schedulers run. A scheduler that finds the key taken sleeps until it
 * expires (its PTTL plus a little jitter) and tries again, so when the holder dies another one takes
 * over within about one interval.
 *
 * Never throws out of its loop: a tick that fails (Redis down, enqueue refused) is logged, reported
 * as an `error` tick, and retried on the next tick.
 *
 * Time comes from an injectable `Clock` (src/core/clock.ts; the system clock by default) and the
 * key from an `IntervalKey`, so a test can run schedulers on a manual clock and an in-memory key
 * and count their ticks exactly (test/unit/sync-scheduler.test.ts).
 */
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { type Clock, type ClockTimer, systemClock } from '../../core/clock.ts';
import { ConnectionLog } from '../../core/connection-log.ts';
import type { FleetConfig } from '../../core/env.ts';
import type { Logger } from '../../core/logger.ts';
import { createRedis, describeRedisError } from '../../core/redis.ts';
import { JobClient } from '../../jobs/client.ts';
import { type IntervalKey, IntervalLock } from './interval-lock.ts';

/** After a failed tick, try again after at most this long, even with a long interval. */
export const ERROR_RETRY_MS = 5_000;
/** How long stop() waits for a tick in flight before closing anyway. */
const STOP_WAIT_MS = 5_000;
/** Upper bound of the random delay added when waiting for another scheduler's key to expire. */
const MAX_JITTER_MS = 50;
/** A command the scheduler sends that gets no answer in this long fails the tick (owned connection). */
const COMMAND_TIMEOUT_MS = 10_000;

/** The job types a scheduler can enqueue; each has its own interval key, named after it. */
export type ScheduledJob = 'sync' | 'prune';

/** Where each scheduled job's interval comes from, for messages. */
const INTERVAL_ENV: Record<ScheduledJob, string> = {
  sync: 'LONGSHORE_SYNC_INTERVAL_MS',
  prune: 'LONGSHORE_PRUNE_INTERVAL_MS',
};

/** What one tick did. */
export type SchedulerTick =
  | { outcome: 'enqueued'; jobId: string; at: number; nextInMs: number }
  /** Another scheduler (or this one, a moment ago) already enqueued this interval's sync. */
  | { outcome: 'skipped'; heldForMs: number; at: number; nextInMs: number }
  | { outcome: 'error'; error: Error; consecutiveErrors: number; at: number; nextInMs: number };

export interface SyncSchedulerEvents {
  tick: [SchedulerTick];
  /** After stop(): no tick runs any more. */
  stopped: [];
}

interface SchedulerCommon {
  /** Where the sync is enqueued (the producer client: validation and lane order included). */
  jobs: Pick<JobClient, 'enqueue'>;
  /** Milliseconds between syncs; 0 disables the scheduler (start() does nothing). */
  intervalMs: number;
  logger?: Logger;
  /** Names this scheduler in logs, in the key's value and in the job's `enqueuedBy` (`scheduler:{id}`). */
  id?: string;
  /** Extra clean-up on stop(), for connections the scheduler owns. */
  onStop?: () => Promise<void>;
  /** Where time comes from (default: the system clock); tests pass a manual one. */
  clock?: Clock;
  /** What to enqueue every interval (default `sync`); its payload is `{}` (every app). */
  job?: ScheduledJob;
}

export type SyncSchedulerOptions = SchedulerCommon &
  (
    | {
        /**
         * Connection for the interval key. Use one whose commands fail while Redis is down instead
         * of queueing (`createRedis(url, 'producer')`), so a tick reports the outage rather than hanging.
         */
        redis: Redis;
        lock?: never;
      }
    | {
        /** The interval key itself, instead of the Redis one (tests: an in-memory key on a manual clock). */
        lock: IntervalKey;
        redis?: never;
      }
  );

export class SyncScheduler extends EventEmitter<SyncSchedulerEvents> {
  readonly id: string;
  readonly intervalMs: number;
  readonly job: ScheduledJob;
  private readonly lock: IntervalKey;
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;
  private timer: ClockTimer | undefined;
  private inFlight: Promise<void> | undefined;
  private active = false;
  private consecutiveErrors = 0;

  constructor(private readonly options: SyncSchedulerOptions) {
    super();
    if (!Number.isInteger(options.intervalMs) || options.intervalMs < 0) {
      throw new RangeError(
        `intervalMs must be a whole number of milliseconds, 0 or more (got ${options.intervalMs})`,
      );
    }
    this.id = options.id ?? `${hostname()}-${process.pid}`;
    this.intervalMs = options.intervalMs;
    this.logger = options.logger?.child({ scheduler: this.id });
    this.clock = options.clock ?? systemClock;
    this.job = options.job ?? 'sync';
    this.lock = options.lock ?? new IntervalLock(options.redis, this.job, this.id);
  }

  /**
   * A scheduler with its own Redis connection (closed by stop()), configured from the environment:
   * `REDIS_URL`, `LONGSHORE_SYNC_INTERVAL_MS` (or `LONGSHORE_PRUNE_INTERVAL_MS` for `job: 'prune'`),
   * and the job defaults.
   */
  static fromConfig(
    config: FleetConfig,
    logger?: Logger,
    id?: string,
    job: ScheduledJob = 'sync',
  ): SyncScheduler {
    const redis = createRedis(config.redisUrl, 'producer', { commandTimeout: COMMAND_TIMEOUT_MS });
    const jobs = new JobClient(redis, { attempts: config.jobAttempts, backoffMs: config.backoffMs });
    // Connection errors also surface as failed ticks; the client reconnects by itself. With a
    // logger they are logged with a back-off; never left to ioredis, which prints them raw.
    const connections = logger ? new ConnectionLog(logger, config.redisUrl) : undefined;
    if (connections) {
      connections.watch(redis, 'scheduler');
      for (const queue of jobs.queues)
        connections.watchBull(
          queue,
          'scheduler-queue',
          (err) => logger?.error({ err: err.message }, 'scheduler queue error'),
          true,
        );
    } else {
      redis.on('error', () => undefined);
      jobs.onQueueError(() => undefined);
    }
    return new SyncScheduler({
      redis,
      jobs,
      intervalMs: job === 'prune' ? config.pruneIntervalMs : config.syncIntervalMs,
      job,
      ...(logger ? { logger } : {}),
      ...(id ? { id } : {}),
      onStop: async () => {
        connections?.mute();
        await jobs.close().catch(() => undefined);
        redis.disconnect();
      },
    });
  }

  get enabled(): boolean {
    return this.intervalMs > 0;
  }

  get running(): boolean {
    return this.active;
  }

  /** Ticks in a row that failed (Redis unreachable, enqueue refused); 0 after one that did not. */
  get failingTicks(): number {
    return this.consecutiveErrors;
  }

  /** Starts ticking: the first tick runs at once (it enqueues only if this interval has no sync yet). */
  start(): void {
    if (this.active) return;
    if (!this.enabled) {
      this.logger?.info(`${this.job} scheduler off (${INTERVAL_ENV[this.job]}=0)`);
      return;
    }
    this.active = true;
    this.logger?.info({ intervalMs: this.intervalMs, key: this.lock.key }, `${this.job} scheduler started`);
    this.schedule(0);
  }

  /** Stops ticking, waits (a bounded time) for a tick in flight, and closes what the scheduler owns. */
  async stop(): Promise<void> {
    const wasActive = this.active;
    this.active = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.inFlight) {
      let waited: ClockTimer | undefined;
      await Promise.race([
        this.inFlight,
        new Promise<void>((resolve) => {
          waited = this.clock.setTimeout(resolve, STOP_WAIT_MS);
        }),
      ]);
      if (waited !== undefined) this.clock.clearTimeout(waited);
    }
    await this.options.onStop?.();
    if (wasActive) this.logger?.info(`${this.job} scheduler stopped`);
    this.emit('stopped');
  }

  /**
   * One tick: take this interval's key and enqueue a sync, or learn how long another scheduler
   * holds it. Never throws. The loop calls it; tests may call it directly.
   */
  async tick(): Promise<SchedulerTick> {
    const at = this.clock.now();
    let result: SchedulerTick;
    let taken = false;
    try {
      const take = await this.lock.take(this.intervalMs || 1);
      if (take.taken) {
        taken = true;
        const job = await this.options.jobs.enqueue(this.job, {}, `scheduler:${this.id}`);
        this.consecutiveErrors = 0;
        result = { outcome: 'enqueued', jobId: job.id, at, nextInMs: this.intervalMs };
        this.logger?.info({ jobId: job.id, nextInMs: result.nextInMs }, `scheduled ${this.job} enqueued`);
      } else {
        this.consecutiveErrors = 0;
        const nextInMs = Math.min(take.heldForMs, this.intervalMs) + jitter(this.intervalMs);
        result = { outcome: 'skipped', heldForMs: take.heldForMs, at, nextInMs };
        this.logger?.debug(
          { heldForMs: take.heldForMs, nextInMs },
          `${this.job} already enqueued this interval (key held by a scheduler)`,
        );
      }
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      // The sync was not enqueued: free the interval so the next tick, here or elsewhere, can.
      if (taken) await this.lock.giveBack().catch(() => undefined);
      this.consecutiveErrors += 1;
      const nextInMs = Math.min(this.intervalMs || ERROR_RETRY_MS, ERROR_RETRY_MS);
      result = { outcome: 'error', error, consecutiveErrors: this.consecutiveErrors, at, nextInMs };
      this.logger?.warn(
        { err: describeRedisError(error), consecutiveErrors: this.consecutiveErrors, nextInMs },
        `scheduled ${this.job} not enqueued; will retry`,
      );
    }
    try {
      this.emit('tick', result);
    } catch (err) {
      // A listener's bug must not stop the schedule.
      this.logger?.error({ err: (err as Error).message }, 'tick listener threw');
    }
    return result;
  }

  private schedule(delayMs: number): void {
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.inFlight = this.tick().then((result) => {
        this.inFlight = undefined;
        if (this.active) this.schedule(result.nextInMs);
      });
    }, delayMs);
  }
}

/** 1 ms to MAX_JITTER_MS (at most a tenth of the interval), so waiting schedulers do not all fire at once. */
function jitter(intervalMs: number): number {
  const max = Math.max(1, Math.min(MAX_JITTER_MS, Math.floor(intervalMs / 10)));
  return 1 + Math.floor(Math.random() * max);
}
