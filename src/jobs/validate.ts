/**
 * Payload validation shared by producers (before enqueueing) and workers (before anything runs).
 * Failures become InvalidInputError with one issue per field, so the CLI can name the field and
 * the worker can fail the job without retrying.
 */
import { contractFor } from './contracts.ts';
import { checkTypeAndSize, parsePayload, type ValidJob } from './payload-checks.ts';

export { issuesOf, MAX_PAYLOAD_BYTES, type ValidJob } from './payload-checks.ts';

/**
 * Validates through the registry of every contract (workers, which run every type). A producer
 * that submits one type uses `validateJobLazily` (validate-lazily.ts), which loads only its own.
 */
export function validateJob(type: string, payload: unknown): ValidJob {
  const checked = checkTypeAndSize(type, payload);
  return parsePayload(checked, contractFor(checked), payload);
}
