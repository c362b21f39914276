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
  'metadata',
  'profiles',
  'autoscaling-auth',
] as const;

export type JobType = (typeof JOB_TYPES)[number];

export function isJobType(type: string): type is JobType {
  return (JOB_TYPES as readonly string[]).includes(type);
}

/**
 * The job types that are not an operator change: they only restore recorded state or read it
 * (config-read, logs, releases, report, storage-list, storage-status, reconcile, sync) or plan
 * without writing (dry-run). They never count as newer work, so they neither make a retry of an
 * older change refuse nor keep two deploys around them from being merged (docs/ordering.md).
 * A plain list rather than a field each schema sets, so the status projection can ask without
 * loading any schema.
 */
export const NEUTRAL_JOB_TYPES = [
  'config-read',
  'dry-run',
  'logs',
  'reconcile',
  'releases',
  'report',
  'storage-list',
  'storage-status',
  'sync',
] as const satisfies readonly JobType[];

/** Whether a job of this type counts as newer work (see NEUTRAL_JOB_TYPES). Unknown types count. */
export function countsAsNewerWork(type: string): boolean {
  return !(NEUTRAL_JOB_TYPES as readonly string[]).includes(type);
}

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
   * Whether the job carries a change an operator (or a git push) asked for: set by
   * defineContract from NEUTRAL_JOB_TYPES, never by a schema.
   */
  readonly operatorChange?: boolean;
  /** The app the job concerns, for listings and the status projection. */
  app(payload: T): string | undefined;
  /** A short description for listings; never contains secret values. */
  describe(payload: T): string;
}

export function defineContract<T>(contract: Omit<JobContract<T>, 'operatorChange'>): JobContract<T> {
  return { ...contract, operatorChange: countsAsNewerWork(contract.type) };
}
