/**
 * What a job handler is given and may return. Handlers hold the Kubernetes work (later layers);
 * the fleet around them owns ordering, retries, attempt history and the status projection.
 */
import type { Redis } from 'ioredis';
import type { FleetConfig } from '../core/env.ts';
import type { Logger } from '../core/logger.ts';
import type { AttemptRecord } from '../jobs/attempts.ts';
import type { JobClient } from '../jobs/client.ts';
import type { JobType } from '../jobs/contract.ts';
import type { Sealer } from '../jobs/sealing.ts';
import type { ReleaseReport } from '../jobs/status.ts';
import type { Cluster } from './cluster.ts';

export interface JobInfo {
  id: string;
  type: JobType;
  lane?: string;
  /** Position in the lane (ordered jobs only). */
  seq?: number;
  /** This attempt's number, counting every earlier start (retries, stalls, hand-backs). */
  attempt: number;
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
   * handler makes its effects idempotent.
   */
  idempotencyKey: string;
  /** Earlier attempts of this job; one without `endedAt` was interrupted (worker crash, kill -9). */
  previousAttempts: AttemptRecord[];
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
  logger: Logger;
  services: WorkerServices;
  /** A line in the job's log, streamed to whoever waits on the job (`--wait`). */
  log(line: string): Promise<void>;
  progress(progress: Progress): Promise<void>;
  /**
   * Runs `fn` once per job across attempts: its result is recorded under `name` and returned
   * without running again on a later attempt. For effects that are not naturally idempotent.
   */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/** What a handler returns; `revision` and `image` feed the status projection. */
export interface HandlerResult {
  summary?: string;
  revision?: number;
  image?: string;
  [key: string]: unknown;
}

export type Handler<P = unknown> = (ctx: HandlerContext<P>) => Promise<HandlerResult | undefined>;
