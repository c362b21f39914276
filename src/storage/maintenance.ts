/**
 * What only the worker's cluster connection (src/workers/cluster.ts) runs on release storage:
 * starting and stopping its caches, and sweeping what crashed writers left. Kept out of
 * ReleaseHistory so the engine, and the code built on it, cannot depend on it.
 */
export interface StoreMaintenance {
  /** Starts the caches; resolves when their first lists arrived. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Deletes stored data no revision references (left by a crash between writing chunks and the
   * index). Data younger than `minAgeMs` (default: the store's orphan grace, 10 minutes) is kept:
   * it may belong to a revision another worker is about to create. Returns how many were deleted.
   */
  sweepOrphans(options?: { minAgeMs?: number }): Promise<number>;
}
