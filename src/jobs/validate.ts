/**
 * Payload validation shared by producers (before enqueueing) and workers (before anything runs).
 * Failures become InvalidInputError with one issue per field, so the CLI can name the field and
 * the worker can fail the job without retrying.
 */
import type { z } from 'zod';
import { type FieldIssue, InvalidInputError } from '../core/errors.ts';
import type { JobContract, JobType } from './contract.ts';
import { JOB_TYPES } from './contract.ts';
import { contractFor, isJobType } from './contracts.ts';

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

export function validateJob(type: string, payload: unknown): ValidJob {
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
  const contract = contractFor(type);
  const parsed = contract.payload.safeParse(payload);
  if (!parsed.success) throw new InvalidInputError(issuesOf(parsed.error), `${type} payload`);
  return { type, contract, payload: parsed.data };
}
