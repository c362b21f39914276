import { describe, expect, it } from 'vitest';
import { SealingError } from '../../src/core/errors.ts';
import { isSealedForReader, ReaderKey, sealForReader } from '../../src/jobs/reader-sealing.ts';
import { redactSealed } from '../../src/jobs/redact.ts';

describe('sealing for the reader that asked', () => {
  it('round-trips, including empty, multi-byte and large answers, without the plaintext in the sealed text', () => {
    const reader = new ReaderKey();
    for (const value of ['', 'ünïcødé ✓ 🚀', JSON.stringify({ config: { A: 'x'.repeat(900_000) } })]) {
      const sealed = sealForReader(value, reader.publicKey, 'config-read:web');
      expect(isSealedForReader(sealed)).toBe(true);
      if (value) expect(sealed).not.toContain(value);
      expect(reader.open(sealed, 'config-read:web')).toBe(value);
    }
  });

  it('uses a fresh worker key each time', () => {
    const reader = new ReaderKey();
    const a = sealForReader('same', reader.publicKey, 'c');
    const b = sealForReader('same', reader.publicKey, 'c');
    expect(a.split('.')[1]).not.toBe(b.split('.')[1]);
  });

  it('opens for no other key, and for no other context', () => {
    const reader = new ReaderKey();
    const sealed = sealForReader('secret', reader.publicKey, 'config-read:web');
    expect(() => new ReaderKey().open(sealed, 'config-read:web')).toThrow(SealingError);
    expect(() => reader.open(sealed, 'config-read:api')).toThrow(/failed authentication/);
  });

  it('refuses an altered answer: ciphertext, tag, iv or worker key changed', () => {
    const reader = new ReaderKey();
    const sealed = sealForReader('secret value', reader.publicKey, 'c');
    for (const part of [1, 2, 3, 4]) {
      const parts = sealed.split('.');
      const p = parts[part] as string;
      // Flip the first character (every bit of it counts, unlike a base64url string's last one).
      parts[part] = `${p[0] === 'A' ? 'B' : 'A'}${p.slice(1)}`;
      expect(() => reader.open(parts.join('.'), 'c')).toThrow(/failed authentication/);
    }
    expect(() => reader.open('lss1.plain', 'c')).toThrow(/not sealed for a reader/);
    expect(() => reader.open(undefined, 'c')).toThrow(SealingError);
  });

  it('refuses a malformed reader key when sealing', () => {
    expect(() => sealForReader('x', 'not-a-key', 'c')).toThrow(/not a reader public key/);
  });

  it('shows as sealed in job listings', () => {
    const reader = new ReaderKey();
    const result = { summary: '1 variable', sealed: sealForReader('{}', reader.publicKey, 'c') };
    expect(redactSealed(result)).toEqual({
      summary: '1 variable',
      sealed: '[sealed for the CLI that asked]',
    });
  });
});
