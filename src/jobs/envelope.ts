/**
 * What a BullMQ job's `data` holds: the validated payload plus the ordering facts the producer
 * fixed at enqueue. The envelope is versioned so a worker can refuse data it does not understand.
 */
import { z } from 'zod';

export const ENVELOPE_VERSION = 1;

export const jobEnvelope = z
  .object({
    v: z.literal(ENVELOPE_VERSION),
    payload: z.unknown(),
    /** Lane id (`app.web`), absent for unordered jobs. */
    lane: z.string().optional(),
    /** Position in the lane when it was reserved; a requeued job gets a newer one in Redis. */
    seq: z.number().int().positive().optional(),
    enqueuedAt: z.number().int(),
    /** Who enqueued it: `cli:alice@host`, `git-hook:…`, `scheduler`, `worker:…`. */
    enqueuedBy: z.string().max(256),
  })
  .strict();

export type JobEnvelope = z.infer<typeof jobEnvelope>;
