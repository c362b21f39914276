import { describe, expect, it } from 'vitest';
import { gzip } from '../../../src/storage/compression.ts';
import {
  chunksOf,
  decodeManifest,
  encodeManifest,
  ManifestError,
  type StoredEntry,
} from '../../../src/storage/manifest.ts';

const d = (c: string) => c.repeat(64);

const entries: StoredEntry[] = [
  {
    type: 'chart',
    digest: d('a'),
    size: 100,
    stored: 80,
    parts: [{ chunk: 'longshore.chunk.one', key: 'k0.0', bytes: 80 }],
  },
  {
    type: 'object',
    ref: { apiVersion: 'v1', kind: 'Service', namespace: 'web', name: 'web' },
    digest: d('b'),
    size: 3000,
    stored: 1500,
    parts: [
      { chunk: 'longshore.chunk.one', key: 'k1.0', bytes: 1000 },
      { chunk: 'longshore.chunk.two', key: 'k1.1', bytes: 500 },
    ],
  },
  {
    type: 'object',
    ref: { apiVersion: 'v1', kind: 'Namespace', name: 'web' },
    digest: d('c'),
    size: 50,
    stored: 40,
    parts: [{ chunk: 'longshore.chunk.two', key: 'k2.0', bytes: 40 }],
  },
];

describe('index manifest', () => {
  it('round-trips entries, with a chunk table and gzip', () => {
    const bytes = encodeManifest(entries);
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    expect(decodeManifest(bytes)).toEqual(entries);
    expect([...chunksOf(entries)]).toEqual(['longshore.chunk.one', 'longshore.chunk.two']);
  });

  it('also reads plain JSON (a manifest repaired by hand)', () => {
    const json = JSON.stringify({
      v: 1,
      chunks: ['longshore.chunk.one'],
      entries: [{ t: 'chart', d: d('a'), n: 100, z: 80, p: [[0, 'k0.0', 80]] }],
    });
    expect(decodeManifest(Buffer.from(json))).toEqual([entries[0]]);
  });

  it('costs about 60 bytes per object once compressed', () => {
    const many: StoredEntry[] = Array.from({ length: 500 }, (_, i) => ({
      type: 'object',
      ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'web', name: `web-${i}` },
      digest: Buffer.from(`${i}`.padStart(32, 'x')).toString('hex'),
      size: 4000,
      stored: 1200,
      parts: [
        { chunk: `longshore.chunk.${'c'.repeat(26)}`, key: `${String(i).padStart(32, '0')}.0`, bytes: 1200 },
      ],
    }));
    expect(encodeManifest(many).byteLength / 500).toBeLessThan(80);
  });

  it.each([
    ['not JSON', Buffer.from('{nope'), /^manifest is not JSON/],
    [
      'a newer version',
      Buffer.from('{"v":2,"chunks":[],"entries":[]}'),
      'unsupported manifest version 2 (this reader knows 1)',
    ],
    ['no version', Buffer.from('[]'), 'unsupported manifest version undefined (this reader knows 1)'],
    [
      'a bad digest',
      Buffer.from(
        JSON.stringify({
          v: 1,
          chunks: ['c'],
          entries: [{ t: 'chart', d: 'xyz', n: 1, z: 1, p: [[0, 'k', 1]] }],
        }),
      ),
      /^invalid manifest at entries\.0\.d/,
    ],
    [
      'a chunk index out of the table',
      Buffer.from(
        JSON.stringify({
          v: 1,
          chunks: [],
          entries: [{ t: 'chart', d: d('a'), n: 1, z: 1, p: [[0, 'k', 1]] }],
        }),
      ),
      /names chunk #0, which is not in its table/,
    ],
    [
      'parts not adding up',
      Buffer.from(
        JSON.stringify({
          v: 1,
          chunks: ['c'],
          entries: [{ t: 'chart', d: d('a'), n: 1, z: 2, p: [[0, 'k', 1]] }],
        }),
      ),
      /parts total 1 bytes, entry says 2/,
    ],
    [
      'no chart entry',
      Buffer.from(JSON.stringify({ v: 1, chunks: [], entries: [] })),
      'manifest must have exactly one chart entry',
    ],
    ['truncated gzip', gzip(Buffer.from('{"v":1}')).subarray(0, 12), /truncated|does not inflate/],
  ])('refuses %s with a ManifestError', (_what, bytes, message) => {
    let caught: unknown;
    try {
      decodeManifest(bytes);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ManifestError);
    if (typeof message === 'string') expect((caught as Error).message).toBe(message);
    else expect((caught as Error).message).toMatch(message);
  });
});
