/**
 * Rotating LONGSHORE_SECRET (docs/operations.md, "Rotating the sealing key"): a Sealer given the
 * previous passphrase opens values sealed under it or under the new one, and seals under the new
 * one only; without it an old value is refused with a message naming the fix.
 */
import { describe, expect, it } from 'vitest';
import { loadFleetConfig } from '../../src/core/env.ts';
import { SealingError } from '../../src/core/errors.ts';
import { Sealer, sealContext } from '../../src/jobs/sealing.ts';

const OLD = 'the-passphrase-before-rotation-0123456789';
const NEW = 'the-passphrase-after-rotation-abcdefghij';
const place = sealContext.config('web', 'DATABASE_URL');

describe('sealing key rotation', () => {
  it('opens values sealed under the previous passphrase and seals under the current one', async () => {
    const before = new Sealer(OLD);
    const queued = before.seal('postgres://old', place);
    const rotating = await Sealer.create(NEW, OLD);
    expect(rotating.previousKeyId).toBe(before.keyId);
    expect(rotating.open(queued, place)).toBe('postgres://old');
    const fresh = rotating.seal('postgres://new', place);
    // Sealed under the new key: a process that has only the new passphrase opens it, the old one cannot.
    expect(new Sealer(NEW).open(fresh, place)).toBe('postgres://new');
    expect(() => before.open(fresh, place)).toThrow(SealingError);
    // Binding to the place still holds for the previous key.
    expect(() => rotating.open(queued, sealContext.config('web', 'OTHER'))).toThrow(/failed authentication/);
  });

  it('refuses an old value once the previous passphrase is gone, naming LONGSHORE_SECRET_PREVIOUS', () => {
    const queued = new Sealer(OLD).seal('x', place);
    expect(() => new Sealer(NEW).open(queued, place)).toThrow(/LONGSHORE_SECRET_PREVIOUS/);
  });

  it('treats the same passphrase twice as no rotation', () => {
    expect(new Sealer(NEW, NEW).previousKeyId).toBeUndefined();
  });

  it('reads LONGSHORE_SECRET_PREVIOUS from the environment, checked and hidden like the secret', () => {
    expect(loadFleetConfig({ LONGSHORE_SECRET: NEW, LONGSHORE_SECRET_PREVIOUS: OLD }).previousSecret).toBe(
      OLD,
    );
    expect(loadFleetConfig({}).previousSecret).toBeUndefined();
    expect(() => loadFleetConfig({ LONGSHORE_SECRET_PREVIOUS: 'short-secret' })).toThrow(
      /LONGSHORE_SECRET_PREVIOUS: must be at least 32 characters .*\(got \(hidden\)\)/,
    );
  });
});
