/**
 * Fleet configuration from the environment, validated once at start so a typo fails with a message
 * naming the variable instead of surfacing later as a connection error. Every default is listed in
 * README.md ("Configuration").
 */
import { dns1123LabelProblem } from '../../rules/names.ts';
import { ConfigError } from './errors.ts';

// Plain checks rather than a schema library: every CLI call reads the environment first, and a
// command that only talks to Redis should not pay for loading one (docs/cli-startup.md).

/** A variable's value, or the message saying what it should have been. */
type Read<T> = { value: T } | { problem: string };

const integer =
  (min: number, max: number, fallback: number, extra?: (n: number) => string | undefined) =>
  (raw: string | undefined): Read<number> => {
    if (raw === undefined) return { value: fallback };
    const text = raw.trim();
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max)
      return { problem: `expected a whole number from ${min} to ${max}` };
    const problem = extra?.(value);
    return problem ? { problem } : { value };
  };

/** 0 turns a schedule off; anything shorter than 100 ms would only hammer Redis. */
const interval = (max: number, fallback: number) =>
  integer(0, max, fallback, (ms) =>
    ms === 0 || ms >= 100 ? undefined : `expected 0 (off) or a whole number from 100 to ${max}`,
  );

/** A sealing passphrase: optional here (only commands that seal ask for it), 32 characters or more. */
const passphrase =
  (what: string) =>
  (raw: string | undefined): Read<string | undefined> =>
    raw === undefined || raw.length >= 32
      ? { value: raw }
      : { problem: `must be at least 32 characters (${what})` };

const text =
  <F extends string | undefined>(fallback: F) =>
  (raw: string | undefined): Read<string | F> => {
    const value = raw?.trim();
    if (value === undefined) return { value: fallback };
    return value.length > 0 ? { value } : { problem: 'must not be blank' };
  };

const oneOf =
  <T extends string, F extends T | undefined>(choices: readonly T[], fallback: F) =>
  (raw: string | undefined): Read<T | F> => {
    if (raw === undefined) return { value: fallback };
    return (choices as readonly string[]).includes(raw)
      ? { value: raw as T }
      : { problem: `expected one of ${choices.map((c) => `"${c}"`).join(', ')}` };
  };

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every variable, with its check and default, in the order problems are reported. */
const variables = {
  REDIS_URL: (raw: string | undefined): Read<string> => {
    const value = (raw ?? 'redis://127.0.0.1:6379').trim();
    return /^rediss?:\/\/\S+$/.test(value) ? { value } : { problem: 'expected a redis:// or rediss:// URL' };
  },
  // Redis Cluster seed nodes (docs/redis-cluster.md); REDIS_URL then only gives the scheme and
  // credentials. REDIS_URL may list the nodes itself instead: redis://h1:7000,h2:7001.
  LONGSHORE_REDIS_CLUSTER: (raw: string | undefined): Read<string | undefined> => {
    if (raw === undefined) return { value: undefined };
    const nodes = raw.split(',').map((n) => n.trim());
    return nodes.every((n) => /^[^\s:,/@]+:\d{1,5}$/.test(n))
      ? { value: nodes.join(',') }
      : { problem: 'expected host:port of each cluster node, separated by commas' };
  },
  // Queue shards, each a BullMQ queue under its own hash tag (src/jobs/shards.ts).
  LONGSHORE_QUEUE_SHARDS: integer(1, 256, 1),
  // The shards a worker consumes, `0,2`; unset: all. Checked against K in src/jobs/shards.ts.
  LONGSHORE_WORKER_SHARDS: (raw: string | undefined): Read<string | undefined> =>
    raw === undefined || /^\s*\d+(\s*,\s*\d+)*\s*$/.test(raw)
      ? { value: raw?.trim() }
      : { problem: 'expected shard numbers separated by commas, like 0,2' },
  LONGSHORE_SECRET: passphrase('a passphrase the whole fleet shares'),
  // The passphrase before a rotation: opens values sealed under it, seals nothing (src/jobs/sealing.ts).
  LONGSHORE_SECRET_PREVIOUS: passphrase('the passphrase LONGSHORE_SECRET had before a rotation'),
  KUBECONFIG: text(undefined),
  LONGSHORE_NAMESPACE: (raw: string | undefined): Read<string> => {
    const value = (raw ?? 'longshore-system').trim();
    const problem = dns1123LabelProblem(value);
    return problem ? { problem } : { value };
  },
  LONGSHORE_CONCURRENCY: integer(1, 64, 8),
  // How far a worker's JS heap grows past what it holds before a full collection (src/workers/heap-growth.ts).
  LONGSHORE_HEAP_GROWTH_PERCENT: integer(0, 300, 20),
  // Quiet seconds after a worker's last job before one full collection (src/workers/idle-gc.ts).
  LONGSHORE_IDLE_GC_SECONDS: integer(0, 3600, 5),
  LONGSHORE_SHUTDOWN_DEADLINE_MS: integer(0, 3_600_000, 25_000),
  LONGSHORE_METRICS_PORT: integer(0, 65_535, 9464),
  LONGSHORE_METRICS_HOST: text('0.0.0.0'),
  LONGSHORE_LOG_LEVEL: oneOf(LOG_LEVELS, 'info'),
  // `longshore dev` only (src/dev/dev-log.ts); workers and schedulers always write JSON lines.
  LONGSHORE_LOG_FORMAT: oneOf(['json', 'pretty'] as const, undefined),
  LONGSHORE_LOCK_DURATION_MS: integer(1_000, 600_000, 30_000),
  LONGSHORE_STALLED_INTERVAL_MS: integer(500, 600_000, 30_000),
  LONGSHORE_MAX_STALLED_COUNT: integer(0, 100, 5),
  LONGSHORE_JOB_ATTEMPTS: integer(1, 100, 5),
  LONGSHORE_BACKOFF_MS: integer(10, 600_000, 2_000),
  LONGSHORE_RESERVATION_GRACE_MS: integer(1_000, 3_600_000, 30_000),
  LONGSHORE_SYNC_INTERVAL_MS: interval(86_400_000, 300_000),
  // The daily prune (src/workers/handlers/prune.ts); 0 turns it off. At most a week.
  LONGSHORE_PRUNE_INTERVAL_MS: interval(7 * 86_400_000, 86_400_000),
  // Stored chunks younger than this are never swept as orphans (a writer may be about to index them).
  LONGSHORE_ORPHAN_GRACE_MS: integer(0, 86_400_000, 600_000),
  // An interactive run (`run -it`) whose CLI wrote nothing this long is detached (docs/apps.md, "run").
  LONGSHORE_RUN_IDLE_TIMEOUT_MS: integer(1_000, 86_400_000, 30_000),
};

type Values = {
  [K in keyof typeof variables]: ReturnType<(typeof variables)[K]> extends Read<infer T> ? T : never;
};

export type LogFormat = 'json' | 'pretty';

export interface FleetConfig {
  /** REDIS_URL, or with LONGSHORE_REDIS_CLUSTER the cluster's nodes in one URL (core/redis.ts). */
  redisUrl: string;
  /** LONGSHORE_QUEUE_SHARDS: K, the queue's shards (default 1). */
  queueShards: number;
  /** LONGSHORE_WORKER_SHARDS as given; unset: a worker consumes every shard. */
  workerShards: string | undefined;
  /** The sealing passphrase; absent until a command that seals or unseals asks for it. */
  secret: string | undefined;
  /** LONGSHORE_SECRET_PREVIOUS: during a rotation, the passphrase values may still be sealed under. */
  previousSecret: string | undefined;
  kubeconfig: string | undefined;
  namespace: string;
  concurrency: number;
  /**
   * LONGSHORE_HEAP_GROWTH_PERCENT: a worker's heap may grow this far past its live objects before
   * V8 collects it in full (default 20); 0 leaves V8's own factor, up to 4×.
   */
  heapGrowthPercent: number;
  /**
   * LONGSHORE_IDLE_GC_SECONDS: once a worker has run no job for this long, it collects its heap in
   * full, returning a burst's garbage (default 5); 0 leaves collection to V8.
   */
  idleGcSeconds: number;
  shutdownDeadlineMs: number;
  metricsPort: number;
  metricsHost: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `longshore dev`'s log lines; unset: pretty on a terminal, JSON otherwise. Workers ignore it. */
  logFormat: LogFormat | undefined;
  /** BullMQ job lock; a worker that stops renewing it for this long is presumed dead. */
  lockDurationMs: number;
  /** How often workers look for jobs whose lock expired (stall recovery). */
  stalledIntervalMs: number;
  /**
   * How many times a job may be recovered from a dead worker (BullMQ's maxStalledCount) before it
   * fails for good: handlers are idempotent and resumable, so a recovery is safe; the limit only
   * stops a job that kills every worker that runs it.
   */
  maxStalledCount: number;
  /** Attempts per job, first run included, for transient failures. */
  jobAttempts: number;
  /** Base delay of the jittered exponential retry backoff. */
  backoffMs: number;
  /** How long an ordering slot reserved by a producer that never added its job blocks its app. */
  reservationGraceMs: number;
  /**
   * How often the fleet enqueues a scheduled `sync` (one per interval however many schedulers
   * run, see src/producers/scheduler/); 0 turns scheduling off.
   */
  syncIntervalMs: number;
  /** How often the fleet enqueues a scheduled `prune` of every app (default daily); 0 turns it off. */
  pruneIntervalMs: number;
  /** Age below which a chunk no revision references is kept by the orphan sweep (default 10 min). */
  orphanGraceMs: number;
  /** LONGSHORE_RUN_IDLE_TIMEOUT_MS: an interactive run's CLI silent this long is detached. */
  runIdleTimeoutMs: number;
}

export function loadFleetConfig(env: NodeJS.ProcessEnv = process.env): FleetConfig {
  // An empty variable means "unset": shells and manifests often export VAR= to clear a value.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const e: Partial<Record<string, unknown>> = {};
  const lines: string[] = [];
  for (const [name, read] of Object.entries(variables)) {
    const result = (read as (raw: string | undefined) => Read<unknown>)(present[name]);
    if ('value' in result) e[name] = result.value;
    else {
      const shown = name.startsWith('LONGSHORE_SECRET') ? '(hidden)' : JSON.stringify(present[name]);
      lines.push(`${name}: ${result.problem} (got ${shown})`);
    }
  }
  if (lines.length > 0) throw new ConfigError(`invalid environment:\n  ${lines.join('\n  ')}`);
  return fromValues(e as Values);
}

function fromValues(e: Values): FleetConfig {
  return {
    redisUrl: e.LONGSHORE_REDIS_CLUSTER
      ? e.REDIS_URL.replace(/^(rediss?:\/\/(?:[^@/]*@)?)[^/?#]*/, `$1${e.LONGSHORE_REDIS_CLUSTER}`)
      : e.REDIS_URL,
    queueShards: e.LONGSHORE_QUEUE_SHARDS,
    workerShards: e.LONGSHORE_WORKER_SHARDS,
    secret: e.LONGSHORE_SECRET,
    previousSecret: e.LONGSHORE_SECRET_PREVIOUS,
    kubeconfig: e.KUBECONFIG,
    namespace: e.LONGSHORE_NAMESPACE,
    concurrency: e.LONGSHORE_CONCURRENCY,
    heapGrowthPercent: e.LONGSHORE_HEAP_GROWTH_PERCENT,
    idleGcSeconds: e.LONGSHORE_IDLE_GC_SECONDS,
    shutdownDeadlineMs: e.LONGSHORE_SHUTDOWN_DEADLINE_MS,
    metricsPort: e.LONGSHORE_METRICS_PORT,
    metricsHost: e.LONGSHORE_METRICS_HOST,
    logLevel: e.LONGSHORE_LOG_LEVEL,
    logFormat: e.LONGSHORE_LOG_FORMAT,
    lockDurationMs: e.LONGSHORE_LOCK_DURATION_MS,
    stalledIntervalMs: e.LONGSHORE_STALLED_INTERVAL_MS,
    maxStalledCount: e.LONGSHORE_MAX_STALLED_COUNT,
    jobAttempts: e.LONGSHORE_JOB_ATTEMPTS,
    backoffMs: e.LONGSHORE_BACKOFF_MS,
    reservationGraceMs: e.LONGSHORE_RESERVATION_GRACE_MS,
    syncIntervalMs: e.LONGSHORE_SYNC_INTERVAL_MS,
    pruneIntervalMs: e.LONGSHORE_PRUNE_INTERVAL_MS,
    orphanGraceMs: e.LONGSHORE_ORPHAN_GRACE_MS,
    runIdleTimeoutMs: e.LONGSHORE_RUN_IDLE_TIMEOUT_MS,
  };
}

/** The sealing passphrase, or a ConfigError telling the operator how to provide it. */
export function requireSecret(config: FleetConfig): string {
  if (!config.secret) {
    throw new ConfigError(
      'LONGSHORE_SECRET is not set: export a passphrase of at least 32 characters, the same on every producer and worker ' +
        '(it seals config values and registry passwords before they reach Redis)',
    );
  }
  return config.secret;
}
