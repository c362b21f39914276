/**
 * Payload validation for producers: the same checks and messages as `validateJob` (validate.ts),
 * loading only the submitted type's contract instead of the registry of every contract.
 */
import { loadContract } from './contract-loaders.ts';
import { checkTypeAndSize, parsePayload, type ValidJob } from './payload-checks.ts';

export async function validateJobLazily(type: string, payload: unknown): Promise<ValidJob> {
  const checked = checkTypeAndSize(type, payload);
  return parsePayload(checked, await loadContract(checked), payload);
}
