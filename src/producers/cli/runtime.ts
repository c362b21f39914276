/**
 * What every CLI command shares: configuration, a producer connection, enqueue-then-wait, and the
 * mapping of errors to exit codes (2 for input a person must fix, 1 for everything else).
 */
import { hostname, userInfo } from 'node:os';
import type { Redis } from 'ioredis';
import { type FleetConfig, loadFleetConfig, requireSecret } from '../../core/env.ts';
import {
  ConfigError,
  InvalidInputError,
  LongshoreError,
  NotFoundError,
  RefusedError,
} from '../../core/errors.ts';
import {
  createRedis,
  describeRedisError,
  isConnectionError,
  redisAddress,
  unreachableRedis,
  waitForRedis,
} from '../../core/redis.ts';
import type { JobClient } from '../../jobs/client.ts';
import type { JobType } from '../../jobs/contract.ts';
import type { Sealer } from '../../jobs/sealing.ts';
import type { StreamEvent } from '../../jobs/stream-events.ts';
import { createStreamRenderer, type RenderMode, type RenderSink } from '../ops/stream-render.ts';
import { EXIT } from './exit-codes.ts';
import { createOutput, type Output } from './output.ts';

// bullmq and the job contracts (zod) load when a command enqueues or reads jobs, not for every
// call: a command that only reads Redis (apps:list) starts without them (docs/cli-startup.md).
const validateJob = async (
  ...args: Parameters<typeof import('../../jobs/validate-lazily.ts').validateJobLazily>
) => (await import('../../jobs/validate-lazily.ts')).validateJobLazily(...args);
const waitForJob = async (...args: Parameters<typeof import('../ops/jobs-ops.ts').waitForJob>) =>
  (await import('../ops/jobs-ops.ts')).waitForJob(...args);

export interface CommonOptions {
  json?: boolean;
  wait?: boolean;
  /** Seconds to wait with --wait before giving up (the job goes on). */
  timeout?: string;
}

export function config(): FleetConfig {
  return loadFleetConfig();
}

/** The fleet's Sealer; its key comes from the derivation {@link startKeyDerivation} began. */
export async function sealer(): Promise<Sealer> {
  const { Sealer } = await import('../../jobs/sealing.ts');
  const fleet = config();
  return Sealer.create(requireSecret(fleet), fleet.previousSecret);
}

/**
 * Loads what submitting a `type` job needs next (its contract, bullmq) for a call that seals a
 * value: the main thread compiles them while the key is derived on the thread pool
 * (key-head-start.ts) instead of waiting for it.
 */
export function prefetchSubmitModules(type: JobType): void {
  void import('../../jobs/contract-loaders.ts').then((m) => m.loadContract(type)).catch(() => undefined);
  void import('../../jobs/client.ts').catch(() => undefined);
}

export function enqueuedBy(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (containers): keep "unknown"
  }
  return `cli:${user}@${hostname()}`;
}

/**
 * Opens a CLI connection for the duration of `fn`. Redis not there at all fails in about a second
 * with one line (the few first connection attempts are spent); Redis lost in the middle of a
 * command that does not wait fails with the same line. Nothing is printed raw: the client's and
 * the queue's `error` events are only read for that line.
 */
export async function withClient<T>(fn: (client: JobClient, redis: Redis) => Promise<T>): Promise<T> {
  const { JobClient } = await import('../../jobs/client.ts');
  const cfg = config();
  return withRedis((redis) => {
    const client = new JobClient(redis, { attempts: cfg.jobAttempts, backoffMs: cfg.backoffMs });
    client.onQueueError(() => undefined);
    return fn(client, redis);
  });
}

/** {@link withClient} for commands that read Redis but no jobs: without loading bullmq. */
export async function withRedis<T>(fn: (redis: Redis) => Promise<T>): Promise<T> {
  const cfg = config();
  const redis = createRedis(cfg.redisUrl, 'cli');
  redis.on('error', () => undefined);
  try {
    await waitForRedis(redis, cfg.redisUrl);
    return await fn(redis);
  } catch (err) {
    if (isConnectionError(err))
      throw unreachableRedis(cfg.redisUrl, describeRedisError(rootCause(err)), err as Error);
    throw err;
  } finally {
    // An ended client (its first attempts spent) has nothing to close; disconnecting it again
    // would keep the process alive for seconds.
    if (redis.status !== 'end') redis.disconnect();
  }
}

/** The innermost error of a chain of `cause`s (the connection error inside "could not enqueue"). */
function rootCause(err: unknown): Error {
  let e = err as Error;
  for (let depth = 0; e.cause instanceof Error && depth < 5; depth++) e = e.cause;
  return e;
}

function timeoutMs(options: CommonOptions): number | undefined {
  if (options.timeout === undefined) return undefined;
  if (!/^\d+$/.test(options.timeout) || Number(options.timeout) < 1) {
    throw new InvalidInputError([
      { path: '--timeout', message: 'must be a whole number of seconds, at least 1' },
    ]);
  }
  return Number(options.timeout) * 1000;
}

/** How a read job's answer is shown: completed with what the fleet reads (`enrich`), then printed. */
export interface ResultView {
  enrich(result: unknown, client: JobClient, redis: Redis): Promise<unknown>;
  print(result: unknown, output: Output): void;
  /**
   * What the view prints is data a script reads whole (config values piped to a file): progress
   * lines go to stderr, and `print` prints the `--json` form too.
   */
  ownsStdout?: boolean;
}

/**
 * Validates, enqueues and (with --wait) follows a job. Validation runs before connecting, so bad
 * input is refused with exit code 2 even when Redis is down.
 */
export async function submit(
  type: string,
  payload: unknown,
  options: CommonOptions,
  /** Checks that need Redis (what the app is known to have), run before enqueueing; they throw to refuse. */
  precheck?: (redis: Redis) => Promise<void>,
  /** For read jobs (releases): what to print of the completed job's result, in place of its summary. */
  view?: ResultView,
): Promise<number> {
  const base = createOutput(Boolean(options.json));
  const output: Output = view?.ownsStdout ? { ...base, info: base.error } : base;
  await validateJob(type, payload);
  const wait = timeoutMs(options);
  const redisUrl = config().redisUrl;
  return withClient(async (client, redis) => {
    if (precheck) await precheck(redis);
    const job = await client.enqueue(type, payload, enqueuedBy());
    const where = job.lane ? ` in lane ${job.lane} at position ${job.seq}` : '';
    output.info(`enqueued ${type} job ${job.id}${where}`);
    if (!options.wait) {
      if (output.json) output.data({ job });
      return EXIT.ok;
    }
    output.info('waiting for it to finish (Ctrl-C stops waiting; the job stays queued)');
    // With a view (a read job), --json prints only the outcome, with the viewed result: one JSON
    // document, as scripts read the answer of a query.
    const renderer = createStreamRenderer(streamSink(), renderMode(output.json));
    const show = (event: StreamEvent) => {
      if (!(view && output.json)) renderer.event(event);
    };
    let final: Awaited<ReturnType<typeof waitForJob>>;
    try {
      final = await waitForJob(
        client,
        job.id,
        {
          onEvent: show,
          // stderr, once per outage: the wait goes on by itself, and so does the job.
          onRedisLost: (err) =>
            renderer.note(
              `waiting for Redis at ${redisAddress(redisUrl)} … (${describeRedisError(err)}; the job goes on)`,
            ),
          onRedisBack: (downForMs) =>
            renderer.note(
              `Redis at ${redisAddress(redisUrl)} is back after ${(downForMs / 1000).toFixed(1)} s; still waiting`,
            ),
        },
        wait !== undefined ? { timeoutMs: wait } : {},
      );
    } finally {
      renderer.end();
    }
    // Loaded with waitForJob (bullmq): on use only, as a command that never waits does not need it.
    const { outcomeEvent } = await import('../ops/jobs-ops.ts');
    if (view && final.state === 'completed') {
      const result = await view.enrich(final.result, client, redis);
      if (output.json && !view.ownsStdout) renderer.event(outcomeEvent({ ...final, result }));
      else view.print(result, output);
      return EXIT.ok;
    }
    renderer.event(outcomeEvent(final));
    return final.state === 'completed' ? EXIT.ok : EXIT.failed;
  });
}

function renderMode(json: boolean): RenderMode {
  if (json) return 'json';
  return process.stdout.isTTY ? 'tty' : 'plain';
}

function streamSink(): RenderSink {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
  };
}

export function exitCodeFor(err: unknown): number {
  if (
    err instanceof InvalidInputError ||
    err instanceof ConfigError ||
    err instanceof RefusedError ||
    err instanceof NotFoundError
  ) {
    return EXIT.invalid;
  }
  return EXIT.failed;
}

/** Wraps a command action: sets the exit code and prints errors as one readable line. */
export function action<A extends unknown[]>(
  fn: (...args: A) => Promise<number | undefined>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      process.exitCode = (await fn(...args)) ?? EXIT.ok;
    } catch (err) {
      const message = err instanceof LongshoreError || err instanceof Error ? err.message : String(err);
      process.stderr.write(`error: ${message}\n`);
      process.exitCode = exitCodeFor(err);
    }
  };
}

/** Parses `KEY=VALUE` words (values may contain "="). */
export function parseAssignments(words: string[], field: string): Record<string, string> {
  const result: Record<string, string> = {};
  const issues: { path: string; message: string }[] = [];
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq <= 0) {
      issues.push({ path: field, message: `"${word}" is not KEY=VALUE` });
      continue;
    }
    result[word.slice(0, eq)] = word.slice(eq + 1);
  }
  if (issues.length > 0) throw new InvalidInputError(issues);
  return result;
}

export type { Output };
