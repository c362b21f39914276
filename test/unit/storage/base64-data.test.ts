/**
 * fromBase64Data (src/storage/secret-builders.ts): a Secret's data decodes byte for byte, and each
 * value owns exactly its bytes. A value sharing Node's 8 KiB Buffer pool would keep the whole slab
 * alive for as long as the chunk cache holds it.
 */
import { describe, expect, it } from 'vitest';
import { fromBase64Data, toBase64Data } from '../../../src/storage/secret-builders.ts';
import { prng } from '../../helpers/prng.ts';

describe('storage: base64 data of Secrets', () => {
  it('round-trips every size and gives each value memory of its own', () => {
    const random = prng(2);
    const values = new Map<string, Uint8Array>();
    for (const size of [0, 1, 2, 3, 4, 100, 600, 4095, 4096, 9000]) {
      values.set(
        `k${size}`,
        Uint8Array.from({ length: size }, () => Math.floor(random() * 256)),
      );
    }
    const decoded = fromBase64Data(toBase64Data(values));
    expect([...decoded.keys()]).toEqual([...values.keys()]);
    for (const [key, value] of values) {
      const got = decoded.get(key)!;
      expect(Buffer.from(got).equals(Buffer.from(value)), key).toBe(true);
      expect(got.byteOffset, key).toBe(0);
      expect(got.buffer.byteLength, key).toBe(value.byteLength);
    }
  });

  it('decodes unpadded base64 too', () => {
    expect([...fromBase64Data({ a: 'aGk' }).get('a')!]).toEqual([104, 105]);
  });
});
