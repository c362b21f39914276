import { describe, expect, it } from 'vitest';
import { SealingError } from '../../src/core/errors.ts';
import { redactSealed } from '../../src/jobs/redact.ts';
import { sealConfigSet } from '../../src/jobs/sealed-input.ts';
import { isSealed, Sealer, sealContext } from '../../src/jobs/sealing.ts';

const sealer = new Sealer('unit-test-passphrase-long-enough-0123456789');

describe('sealing', () => {
  it('round-trips values, including empty and multi-byte ones', () => {
    for (const value of ['', 'p@ss=word', 'ünïcødé ✓', 'x'.repeat(100_000)]) {
      const sealed = sealer.seal(value, 'config:web:A');
      expect(isSealed(sealed)).toBe(true);
      expect(sealed).not.toContain(value || '\u0000');
      expect(sealer.open(sealed, 'config:web:A')).toBe(value);
    }
  });

  it('uses a fresh IV each time', () => {
    expect(sealer.seal('same', 'c')).not.toBe(sealer.seal('same', 'c'));
  });

  it('refuses a value moved to another field or app', () => {
    const sealed = sealer.seal('secret', sealContext.config('web', 'A'));
    expect(() => sealer.open(sealed, sealContext.config('web', 'B'))).toThrow(SealingError);
    expect(() => sealer.open(sealed, sealContext.config('api', 'A'))).toThrow(/failed authentication/);
  });

  it('refuses tampered ciphertext', () => {
    const sealed = sealer.seal('secret', 'c');
    const parts = sealed.split('.');
    parts[3] = `${parts[3]!.slice(0, -2)}${parts[3]!.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(() => sealer.open(parts.join('.'), 'c')).toThrow(/failed authentication/);
  });

  it('says when the passphrase differs', () => {
    const other = new Sealer('another-passphrase-long-enough-0123456789');
    expect(() => other.open(sealer.seal('x', 'c'), 'c')).toThrow(
      /sealed with another LONGSHORE_SECRET \(key id [0-9a-f]{8}/,
    );
  });

  it('checks names and the Secret size on plaintext before sealing', () => {
    expect(() => sealConfigSet(sealer, 'web', { 'BAD-NAME': 'x' })).toThrow(/set\.BAD-NAME: must be letters/);
    expect(() => sealConfigSet(sealer, 'web', { A: 'x'.repeat(1_048_576) })).toThrow(
      /set: names and values total 1048577 bytes/,
    );
    const sealed = sealConfigSet(sealer, 'web', { A: 'one' });
    expect(sealer.open(sealed.A!, sealContext.config('web', 'A'))).toBe('one');
  });

  it('redacts sealed values anywhere in a payload', () => {
    const payload = { app: 'web', set: { A: sealer.seal('x', 'c') }, list: [sealer.seal('y', 'c'), 'plain'] };
    expect(redactSealed(payload)).toEqual({
      app: 'web',
      set: { A: '[sealed]' },
      list: ['[sealed]', 'plain'],
    });
  });
});
