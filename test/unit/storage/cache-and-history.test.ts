import type { V1Secret } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ChunkCache } from '../../../src/storage/chunk-cache.ts';
import { IndexView } from '../../../src/storage/index-view.ts';
import { encodeManifest } from '../../../src/storage/manifest.ts';
import { revisionsOverCap } from '../../../src/storage/pruner.ts';
import type { ReleaseStatus } from '../../../src/storage/types.ts';

const data = (bytes: number) => new Map([['k', new Uint8Array(bytes - 1)]]);

describe('chunk cache', () => {
  it('evicts least recently used chunks to stay within its byte bound', () => {
    const cache = new ChunkCache(1000);
    cache.set('a', data(400));
    cache.set('b', data(400));
    expect(cache.get('a')).toBeDefined(); // a is now the most recent
    cache.set('c', data(400));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.bytes).toBe(800);
  });

  it('does not keep a chunk larger than the whole cache', () => {
    const cache = new ChunkCache(100);
    cache.set('big', data(200));
    expect(cache.size).toBe(0);
  });
});

const index = (revision: number, status: ReleaseStatus, manifest?: Uint8Array): V1Secret => ({
  metadata: {
    name: `longshore.release.v1.web.v${revision}`,
    uid: `uid-${revision}`,
    labels: {
      'longshore.dev/release': 'web',
      'longshore.dev/app': 'web',
      'longshore.dev/revision': String(revision),
      'longshore.dev/status': status,
    },
    annotations: { 'longshore.dev/digest': 'd', 'longshore.dev/created-at': '2026-01-01T00:00:00.000Z' },
  },
  data: manifest ? { manifest: Buffer.from(manifest).toString('base64') } : {},
});

describe('index view', () => {
  const view = new IndexView();
  const manifest = encodeManifest([
    {
      type: 'chart',
      digest: 'a'.repeat(64),
      size: 1,
      stored: 1,
      parts: [{ chunk: 'c', key: 'k', bytes: 1 }],
    },
    {
      type: 'object',
      ref: { apiVersion: 'v1', kind: 'Service', namespace: 'web', name: 'web' },
      digest: 'b'.repeat(64),
      size: 1,
      stored: 1,
      parts: [{ chunk: 'c', key: 'k2', bytes: 1 }],
    },
  ]);

  it('reads metadata from labels and annotations and objects from the manifest', () => {
    expect(view.view(index(3, 'deployed', manifest))?.info).toEqual({
      release: 'web',
      app: 'web',
      revision: 3,
      status: 'deployed',
      chart: { name: '', version: '' },
      digest: 'd',
      description: '',
      createdAt: '2026-01-01T00:00:00.000Z',
      modifiedAt: '2026-01-01T00:00:00.000Z',
      objects: [{ apiVersion: 'v1', kind: 'Service', namespace: 'web', name: 'web', digest: 'b'.repeat(64) }],
    });
  });

  it('lists an index without a readable manifest, saying why', () => {
    const info = view.view(index(4, 'bogus' as ReleaseStatus))?.info;
    expect(info).toMatchObject({
      revision: 4,
      status: 'unknown',
      objects: [],
      unreadable: 'the index has no manifest',
    });
  });

  it('ignores Secrets that are not indexes', () => {
    expect(view.view({ metadata: { name: 'x', labels: {} } })).toBeUndefined();
  });
});

describe('history cap', () => {
  const revs = (statuses: ReleaseStatus[]) =>
    statuses.map((status, i) => ({ secret: {}, info: { revision: i + 1, status } }) as never);

  it('deletes the oldest revisions beyond the cap', () => {
    const doomed = revisionsOverCap(revs(Array<ReleaseStatus>(12).fill('superseded')), 10);
    expect(doomed.map((r: { info: { revision: number } }) => r.info.revision)).toEqual([1, 2]);
  });

  it('never deletes the last deployed revision, however old', () => {
    const statuses: ReleaseStatus[] = ['superseded', 'deployed', ...Array<ReleaseStatus>(12).fill('failed')];
    const doomed = revisionsOverCap(revs(statuses), 10);
    expect(doomed.map((r: { info: { revision: number } }) => r.info.revision)).toEqual([1, 3, 4]);
  });

  it('keeps everything at or under the cap, and with keep=0', () => {
    expect(revisionsOverCap(revs(['deployed', 'failed']), 10)).toEqual([]);
    expect(revisionsOverCap(revs(Array<ReleaseStatus>(30).fill('failed')), 0)).toEqual([]);
  });
});
