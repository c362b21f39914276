import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/core/errors.ts';
import { JOB_TYPES } from '../../../src/jobs/contract.ts';
import { loadContract } from '../../../src/jobs/contract-loaders.ts';
import { contractFor } from '../../../src/jobs/contracts.ts';
import { MAX_PAYLOAD_BYTES, validateJob } from '../../../src/jobs/validate.ts';
import { validateJobLazily } from '../../../src/jobs/validate-lazily.ts';

/** The refusal a validation throws, as the fields and messages a person reads. */
async function refusal(run: () => unknown): Promise<{ message: string; issues: unknown }> {
  try {
    await run();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    const e = err as InvalidInputError;
    return { message: e.message, issues: e.issues };
  }
  throw new Error('expected a refusal');
}

describe('contracts loaded on demand', () => {
  it.each(JOB_TYPES)('%s loads the registry’s own contract object', async (type) => {
    expect(await loadContract(type)).toBe(contractFor(type));
  });

  it('accepts what the registry accepts, with the same defaults filled in', async () => {
    const payload = { app: 'shop', unset: ['A'] };
    expect((await validateJobLazily('config', payload)).payload).toEqual(
      validateJob('config', payload).payload,
    );
    expect((await validateJobLazily('scale', { app: 'shop', processes: { web: 2 } })).payload).toEqual(
      validateJob('scale', { app: 'shop', processes: { web: 2 } }).payload,
    );
  });

  it.each([
    ['an unknown type', 'teleport', { app: 'shop' }],
    ['a bad field', 'config', { app: 'Shop!', unset: ['A'] }],
    ['an unknown field', 'destroy', { app: 'shop', everything: true }],
    ['an oversized payload', 'config', { app: 'shop', unset: ['x'.repeat(MAX_PAYLOAD_BYTES)] }],
  ])('refuses %s with the registry’s fields and messages', async (_case, type, payload) => {
    const lazily = await refusal(() => validateJobLazily(type, payload));
    expect(lazily).toEqual(await refusal(() => validateJob(type, payload)));
  });
});
