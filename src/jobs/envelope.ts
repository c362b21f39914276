/**
 * What a BullMQ job's `data` holds: the validated payload plus the ordering facts the producer
 * fixed at enqueue. The envelope is versioned so a worker can refuse data it does not understand.
 * Plain types here, so a producer builds one without loading zod's schema of it
 * (envelope-schema.ts, which readers of jobs check data with).
 */

export const ENVELOPE_VERSION = 1;

export interface JobEnvelope {
  v: typeof ENVELOPE_VERSION;
  payload: unknown;
  /** Lane id (`app.web`), absent for unordered jobs. */
  lane?: string | undefined;
  /** Position in the lane when it was reserved; a requeued job gets a newer one in Redis. */
  seq?: number | undefined;
  enqueuedAt: number;
  /** Who enqueued it: `cli:alice@host`, `git-hook:…`, `scheduler`, `worker:…`. */
  enqueuedBy: string;
}
