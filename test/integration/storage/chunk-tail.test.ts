/**
 * The chunk tail (src/storage/chunk-tail.ts): chunks another store writes reach this store's LRU
 * through a watch, so reading that revision back costs no GET; a store started later keeps the
 * chunks of the releases' current revisions from a list (the warm-up, within half its LRU) and
 * fetches older ones when read; the tail resumes after dropped watches and compaction;
 * `tailChunks: false` turns it off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretReleaseStore } from '../../../src/storage/index.ts';
import { makeContent } from '../../fixtures/storage/content.ts';
import { type StorageHarness, startStorageHarness } from '../../fixtures/storage/harness.ts';
import { holdFor, until } from '../../helpers/wait.ts';

describe('release storage: the chunk tail', () => {
  let h: StorageHarness;
  let writer: SecretReleaseStore;
  let revision = 0;

  const content = (tag: string) => makeContent({ objects: 10, bytesPerObject: 1_000, seed: `tail-${tag}` });
  const write = async (release = 'web') => {
    revision++;
    await writer.create({
      app: 'web',
      release,
      revision,
      status: 'deployed',
      content: content(`r${revision}`),
      description: `rev ${revision}`,
    });
    return revision;
  };
  /** Writes a revision and waits until `reader` has every chunk it wrote (all new: unique content). */
  const writeSeenBy = async (reader: SecretReleaseStore) => {
    const chunksBefore = (await h.secrets('chunk')).length;
    const received = reader.tailedChunks;
    const n = await write();
    const written = (await h.secrets('chunk')).length - chunksBefore;
    expect(written).toBeGreaterThan(0);
    await until(() => reader.tailedChunks >= received + written, 'the chunks to arrive through the watch');
    await until(() => reader.history('web').some((r) => r.revision === n), 'the reader to see the index');
    return n;
  };
  const chunkGets = (records: ReturnType<ReturnType<StorageHarness['record']>>) =>
    records.filter((r) => r.verb === 'get' && r.resource === '/secrets');

  beforeAll(async () => {
    h = await startStorageHarness();
    writer = await h.store();
  });
  afterAll(() => h.stop());

  it('reads a revision another store wrote from its cache, with no GET', async () => {
    const reader = await h.store();
    const n = await writeSeenBy(reader);
    const requests = h.record();
    expect(await reader.read('web', n)).toEqual(content(`r${n}`));
    expect(chunkGets(requests())).toEqual([]);
  });

  it('keeps the current revisions’ chunks at start, not older ones: an older chunk is fetched once', async () => {
    const older = await write();
    const n = await write();
    const late = await h.store();
    await until(() => late.history('web').some((r) => r.revision === n), 'the late store to see the index');
    expect(await late.chunksWarmed).toBeGreaterThan(0);
    expect(late.tailedChunks).toBe(0);
    const current = h.record();
    expect(await late.read('web', n)).toEqual(content(`r${n}`));
    expect(chunkGets(current())).toEqual([]);
    const old = h.record();
    expect(await late.read('web', older)).toEqual(content(`r${older}`));
    expect(chunkGets(old()).length).toBeGreaterThan(0);
    const again = h.record();
    expect(await late.read('web', older)).toEqual(content(`r${older}`));
    expect(chunkGets(again())).toEqual([]);
  });

  it('warms at most half of the chunk LRU', async () => {
    for (let i = 0; i < 6; i++) await write(`many-${i}`);
    const full = await h.store();
    const all = await full.chunksWarmed;
    // An LRU just the size of every current chunk: the warm-up stops once half of it is used.
    const budget = full.cachedChunkBytes;
    const half = await h.store({ chunkCacheBytes: budget });
    const warmed = await half.chunksWarmed;
    expect(warmed).toBeGreaterThan(0);
    expect(warmed).toBeLessThan(all);
    expect(half.cachedChunkBytes).toBeLessThan(budget);
  });

  it('resumes after a dropped watch and after compaction (410 Gone)', async () => {
    const reader = await h.store();
    const compactAndDrop = () => {
      h.sim.compact();
      h.sim.dropWatches();
    };
    for (const cut of [() => h.sim.dropWatches(), compactAndDrop]) {
      cut();
      // Chunks written while the tail reconnects may be missed (they would be fetched when read):
      // write until one arrives, bounded, then the next revision must come through the watch.
      const before = reader.tailedChunks;
      for (let i = 0; i < 50 && reader.tailedChunks === before; i++) {
        await write('probe');
        await holdFor(100, 'the tail to reconnect');
      }
      expect(reader.tailedChunks).toBeGreaterThan(before);
      const n = await writeSeenBy(reader);
      const requests = h.record();
      expect(await reader.read('web', n)).toEqual(content(`r${n}`));
      expect(chunkGets(requests())).toEqual([]);
    }
  });

  it('with tailChunks false, another store’s chunk is fetched', async () => {
    const reader = await h.store({ tailChunks: false });
    const n = await write();
    await until(() => reader.history('web').some((r) => r.revision === n), 'the reader to see the index');
    const requests = h.record();
    expect(await reader.read('web', n)).toEqual(content(`r${n}`));
    expect(reader.tailedChunks).toBe(0);
    expect(chunkGets(requests()).length).toBeGreaterThan(0);
  });
});
