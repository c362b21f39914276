import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/storage/canonical-json.ts';
import { gunzip, gzip } from '../../../src/storage/compression.ts';
import { sha256Hex } from '../../../src/storage/digest.ts';
import { contentDigest, decodeContent, encodeContent } from '../../../src/storage/entries.ts';
import type { ReleaseContent } from '../../../src/storage/types.ts';
import { makeContent } from '../../fixtures/storage/content.ts';

describe('content as entries', () => {
  const content: ReleaseContent = {
    chart: { name: 'app', version: '1.2.3' },
    values: { replicas: 2, image: 'web:1' },
    objects: [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'web' } },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web-web', namespace: 'web' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'web' } },
    ],
  };

  it('makes one entry for chart and values, then one per object in order, digested by canonical JSON', () => {
    const { entries, renderedBytes } = encodeContent(content);
    expect(entries.map((e) => [e.type, e.ref?.kind])).toEqual([
      ['chart', undefined],
      ['object', 'Service'],
      ['object', 'Deployment'],
      ['object', 'Namespace'],
    ]);
    expect(entries[3]?.ref).toEqual({ apiVersion: 'v1', kind: 'Namespace', name: 'web' });
    for (const [i, object] of content.objects.entries()) {
      expect(entries[i + 1]?.digest).toBe(sha256Hex(canonicalJson(object)));
    }
    expect(renderedBytes).toBe(entries.reduce((n, e) => n + e.bytes.byteLength, 0));
  });

  it('computes the revision digest in the same pass as contentDigest does on its own', () => {
    expect(encodeContent(content).digest).toBe(contentDigest(content));
    const big = makeContent({ objects: 30, bytesPerObject: 1000 });
    expect(encodeContent(big).digest).toBe(contentDigest(big));
    expect(contentDigest({ ...content, objects: [] })).toBe(
      encodeContent({ ...content, objects: [] }).digest,
    );
    // Key order does not matter; content does.
    const reordered = {
      objects: content.objects,
      values: { image: 'web:1', replicas: 2 },
      chart: content.chart,
    };
    expect(contentDigest(reordered)).toBe(contentDigest(content));
    expect(contentDigest({ ...content, values: { replicas: 3 } })).not.toBe(contentDigest(content));
  });

  it('decodes entries back into the same content', () => {
    const { entries } = encodeContent(content);
    expect(decodeContent(entries)).toEqual(content);
  });
});

describe('entry compression', () => {
  it('is deterministic (no timestamp in the gzip header)', () => {
    const bytes = Buffer.from('x'.repeat(10_000));
    const a = gzip(bytes);
    expect(Buffer.from(gzip(bytes)).equals(Buffer.from(a))).toBe(true);
    expect([...a.subarray(4, 8)]).toEqual([0, 0, 0, 0]); // MTIME
    expect(Buffer.from(gunzip(a, bytes.length)).equals(bytes)).toBe(true);
  });

  it('refuses data whose trailer disagrees with the expected size before inflating', () => {
    const gz = gzip(Buffer.from('hello'));
    expect(() => gunzip(gz, 6)).toThrow('gzip trailer says 5 bytes, the manifest 6');
    expect(() => gunzip(Buffer.from('not gzip at all, no'), 5)).toThrow('not gzip data');
  });
});
