/**
 * What every job type declares once, for producers and workers alike: its payload schema, the lane
 * that orders it, and how to describe it without revealing secrets.
 */
import type { z } from 'zod';
import type { Lane } from './lane.ts';

export const JOB_TYPES = [
  'deploy',
  'config',
  'config-read',
  'scale',
  'domains',
  'ports',
  'properties',
  'rename',
  'destroy',
  'prune',
  'sync',
  'reconcile',
  'storage-create',
  'storage-destroy',
  'storage-status',
  'run',
  'mounts',
  'storage-list',
  'releases',
  'rollback',
  'ps',
  'resources',
  'report',
  'logs',
  'registry-login',
  'registry-logout',
  'dry-run',
] as const;

export type JobType = (typeof JOB_TYPES)[number];

export interface JobContract<T = unknown> {
  type: JobType;
  /** One line for `--help` and docs. */
  summary: string;
  payload: z.ZodType<T>;
  /** The lane that orders this job; undefined for jobs that need no ordering (one-off runs, reads). */
  lane(payload: T): Lane | undefined;
  /**
   * A second lane the job holds (a rename: the new name's; a mount: its storage entry's). The
   * producer reserves a barrier there, the job's own id at that lane's next position, in the same
   * script as its own: the job starts once it heads both lanes, and the lane's later jobs wait
   * until it has finished (docs/ordering.md, "Barriers").
   */
  barrierLane?(payload: T): Lane | undefined;
  /**
   * Jobs of this type in the same lane supersede each other: when an older one reaches the head of
   * its lane while a newer one is queued, it completes as `superseded` without running (a newer git
   * push makes an older, not yet started deploy pointless). A key belongs to one job type. For a job
   * that is an operator change, only a newer one with no other operator change between them
   * supersedes it (see docs/ordering.md).
   */
  supersedeKey?: string;
  /**
   * Whether the job carries a change an operator (or a git push) asked for; default true. Jobs that
   * only restore recorded state or read it (reconcile, sync, storage-status) say false: they never
   * count as newer work, so they neither make a retry of an older change refuse nor keep two
   * deploys around them from being merged.
   */
  operatorChange?: boolean;
  /** The app the job concerns, for listings and the status projection. */
  app(payload: T): string | undefined;
  /** A short description for listings; never contains secret values. */
  describe(payload: T): string;
}

export function defineContract<T>(contract: JobContract<T>): JobContract<T> {
  return contract;
}
