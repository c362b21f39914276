/** The schema a job's data is checked with before anything reads it (workers, job inspection). */
import { z } from 'zod';
import { ENVELOPE_VERSION, type JobEnvelope } from './envelope.ts';

export const jobEnvelope: z.ZodType<JobEnvelope> = z
  .object({
    v: z.literal(ENVELOPE_VERSION),
    payload: z.unknown(),
    lane: z.string().optional(),
    seq: z.number().int().positive().optional(),
    enqueuedAt: z.number().int(),
    enqueuedBy: z.string().max(256),
  })
  .strict();
