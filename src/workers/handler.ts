/**
 * What a job handler is given and may return. Handlers hold the Kubernetes work (later layers);
 * the fleet around them owns ordering, retries, attempt history and the status projection.
 * A job can run again after its worker died or lost the job's lock, so a handler's effects are
 * idempotent under `idempotencyKey` (the deploy pipeline and the release engine are).
 */
import type { Redis } from 'ioredis';
import type { FleetConfig } from '../core/env.ts';
import type { Logger } from '../core/logger.ts';
import type { JobClient } from '../jobs/client.ts';
import type { JobType } from '../jobs/contract.ts';
import type { Sealer } from '../jobs/sealing.ts';
import type { ReleaseReport } from '../jobs/status.ts';
import type { RolloutCounts } from '../jobs/stream-events.ts';
import type { Cluster } from './cluster.ts';

export interface JobInfo {
  id: string;
  type: JobType;
  lane?: string;
  /** Position in the lane (ordered jobs only). */
  seq?: number;
  /** This attempt's number (1-based), counting every earlier start (retries, stalls, hand-backs). */
  attemptNumber: number;
  enqueuedBy: string;
  enqueuedAt: number;
}

export interface Progress {
  step: string;
  message?: string;
  percent?: number;
}

/** Shared by every handler of one worker process. */
export interface WorkerServices {
  config: FleetConfig;
  redis: Redis;
  jobs: JobClient;
  sealer: Sealer;
  /** The cluster (clients, release store, engine), connected on first use; ConfigError when none is configured. */
  cluster(): Promise<Cluster>;
}

export interface HandlerContext<P> {
  job: JobInfo;
  payload: P;
  /**
   * Stable across retries and stall recovery of this job (the job id): the key under which a
   * handler makes its effects idempotent (the release engine's holder of a pending revision).
   */
  idempotencyKey: string;
  /** Aborted when an operator cancels the job, the worker shuts down, or the job lock is lost. */
  signal: AbortSignal;
  /**
   * This is the job's last attempt (its `attempts` are used up after it): a failure now, transient
   * or not, ends the job. A handler then leaves an honest state (a release revision `failed`, not
   * `pending-*` for a retry that will never come).
   */
  finalAttempt: boolean;
  /** An operator cancelled the job (`jobs:cancel`): `signal` is aborted and the job ends as cancelled. */
  readonly cancelled: boolean;
  /**
   * Facts about the app's release for the status projection, written with the job's outcome
   * (success or failure); the last call wins.
   */
  report(release: ReleaseReport): void;
  /**
   * A dry run (a `dry-run` job standing for this one, src/jobs/schemas/dry-run.ts): the handler
   * checks and renders as usual, plans each write instead of making it (the deploy pipeline asks
   * the engine for a plan), and writes nothing — no cluster object, no history, no app record, no
   * Redis record beyond the job's own result.
   */
  dryRun?: boolean;
  logger: Logger;
  services: WorkerServices;
  /**
   * The job's stream (src/jobs/stream-events.ts), read by whoever waits on it (`--wait`):
   * `log` writes a detail line (under the current step), `step` a phase header
   * (`-----> Deploying shop (image nginx:1.27)`), `warn` something to look at, `rollout` where
   * a rollout stands (a person's terminal redraws it in place).
   */
  log(line: string): Promise<void>;
  step(text: string): Promise<void>;
  warn(text: string): Promise<void>;
  rollout(status: { release?: string; deployments: RolloutCounts[] }): Promise<void>;
  /**
   * The job's progress value (Bull Board shows it; not part of the stream, `--wait` does not print
   * it). `step` sets it too, so a handler that writes steps needs no call of its own.
   */
  progress(progress: Progress): Promise<void>;
}

/**
 * What a handler returns; `revision` and `image` feed the status projection. The runner reads
 * nothing from the payload: a handler that changes what an app runs says so here (deploy's
 * `image`).
 */
export interface HandlerResult {
  summary?: string;
  revision?: number;
  image?: string;
  [key: string]: unknown;
}

export type Handler<P = unknown> = (ctx: HandlerContext<P>) => Promise<HandlerResult | undefined>;
