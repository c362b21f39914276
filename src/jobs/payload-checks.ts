/**
 * The checks every payload passes before its contract's schema runs, and the shape of a valid job:
 * shared by the registry's validation (src/jobs/validate.ts, workers) and the on-demand one that
 * loads only the job type's own contract (src/jobs/validate-lazily.ts, producers). Imports no
 * contract.
 */
import type { z } from 'zod';
import { type FieldIssue, InvalidInputError } from '../core/errors.ts';
import { isJobType, JOB_TYPES, type JobContract, type JobType } from './contract.ts';

/**
 * Largest payload accepted on the queue, as JSON. Config values may total 1 MiB in the Secret;
 * sealed, they grow by a third, so 2 MiB leaves room for that and nothing much bigger.
 */
export const MAX_PAYLOAD_BYTES = 2 * 1024 * 1024;

export interface ValidJob<T = unknown> {
  type: JobType;
  contract: JobContract<T>;
  payload: T;
}

export function issuesOf(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

/** Refuses an unknown job type or an oversized payload; the type, checked. */
export function checkTypeAndSize(type: string, payload: unknown): JobType {
  if (!isJobType(type)) {
    throw new InvalidInputError(
      [{ path: 'type', message: `unknown job type "${type}" (known: ${JOB_TYPES.join(', ')})` }],
      'job',
    );
  }
  const size = Buffer.byteLength(JSON.stringify(payload ?? null), 'utf8');
  if (size > MAX_PAYLOAD_BYTES) {
    throw new InvalidInputError(
      [
        {
          path: 'payload',
          message: `is ${size} bytes; a job payload may be at most ${MAX_PAYLOAD_BYTES} bytes`,
        },
      ],
      `${type} payload`,
    );
  }
  return type;
}

/** Parses `payload` with its contract's schema: InvalidInputError with one issue per field. */
export function parsePayload(type: JobType, contract: JobContract<unknown>, payload: unknown): ValidJob {
  const parsed = contract.payload.safeParse(payload);
  if (!parsed.success) throw new InvalidInputError(issuesOf(parsed.error), `${type} payload`);
  return { type, contract, payload: parsed.data };
}
