import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/storage/canonical-json.ts';
import { base32, sha256Hex } from '../../../src/storage/digest.ts';

describe('canonical JSON', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('gives equal text for equal values built in different orders', () => {
    const one = { metadata: { name: 'web', labels: { b: '2', a: '1' } }, kind: 'Service' };
    const two = { kind: 'Service', metadata: { labels: { a: '1', b: '2' }, name: 'web' } };
    expect(canonicalJson(one)).toBe(canonicalJson(two));
  });

  it('writes what JSON.stringify writes for everything but key order', () => {
    const value = {
      s: 'quote " backslash \\ newline \n unicode é 😀',
      n: [0, -1.5, 1e21, Number.NaN],
      u: undefined,
      f: () => 1,
      arr: [undefined, () => 1],
      d: new Date('2026-01-02T03:04:05.000Z'),
      t: true,
    };
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
    expect(canonicalJson(value)).toBe(
      '{"arr":[null,null],"d":"2026-01-02T03:04:05.000Z","n":[0,-1.5,1e+21,null],' +
        `"s":${JSON.stringify(value.s)},"t":true}`,
    );
  });

  it('refuses BigInt rather than guess an encoding', () => {
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
  });
});

describe('digests and base32', () => {
  it('encodes RFC 4648 base32, lowercase and unpadded', () => {
    // RFC 4648 test vectors, lowercased without padding.
    expect(base32(Buffer.from(''))).toBe('');
    expect(base32(Buffer.from('f'))).toBe('my');
    expect(base32(Buffer.from('fo'))).toBe('mzxq');
    expect(base32(Buffer.from('foo'))).toBe('mzxw6');
    expect(base32(Buffer.from('foob'))).toBe('mzxw6yq');
    expect(base32(Buffer.from('fooba'))).toBe('mzxw6ytb');
    expect(base32(Buffer.from('foobar'))).toBe('mzxw6ytboi');
  });

  it('hashes to hex sha256', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
