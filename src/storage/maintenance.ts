/**
 * What only the worker's cluster connection (src/workers/cluster.ts) runs on release storage:
 * starting and stopping its caches, and sweeping what crashed writers left. Kept out of
 * ReleaseHistory so the engine, and the code built on it, cannot depend on it.
 */
export interface SweepOptions {
  minAgeMs?: number;
  /** Only chunks of this app (their `longshore.dev/app` label): `prune APP`. */
  app?: string;
  /** Count (and name) the orphans, delete none: `prune --dry-run`. */
  dryRun?: boolean;
  /** Called with each orphan chunk's name, as it is deleted (or would be, in a dry run). */
  onOrphan?: (chunk: string) => void;
}

export interface StoreMaintenance {
  /** Starts the caches; resolves when their first lists arrived. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Deletes stored data no revision references (left by a crash between writing chunks and the
   * index). Data younger than `minAgeMs` (default: the store's orphan grace, 10 minutes) is kept:
   * it may belong to a revision another worker is about to create. Returns how many were deleted.
   * With `dryRun`, deletes nothing and returns how many would be; `onOrphan` is told each one's name.
   */
  sweepOrphans(options?: SweepOptions): Promise<number>;
}
