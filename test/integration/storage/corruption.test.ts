/**
 * A corrupt or missing chunk spoils the revisions that use it and nothing else: history still
 * lists every revision, other revisions read back, and the next write does not build on the bad
 * chunk (it writes those entries again, even when the writer did not know the chunk was bad).
 */
import type { V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SecretReleaseStore, UnreadableRevisionError } from '../../../src/storage/index.ts';
import { decodeManifest } from '../../../src/storage/manifest.ts';
import { makeContent } from '../../fixtures/storage/content.ts';
import { NS, type StorageHarness, startStorageHarness } from '../../fixtures/storage/harness.ts';

describe('release storage with damaged chunks', () => {
  let h: StorageHarness;
  let writer: SecretReleaseStore;
  const spec = { objects: 10, bytesPerObject: 2_000, incompressible: true, seed: 'corrupt' };
  const content = (tag: string) => makeContent({ ...spec, changed: { indexes: [3], tag } });

  /** Names of the chunks only `revision` of release `cr` uses (its changed object's). */
  const ownChunk = async (revision: number): Promise<string> => {
    const indexes = await h.secrets('index');
    const chunksOf = (i: V1Secret) =>
      new Set(
        decodeManifest(Buffer.from(i.data?.manifest ?? '', 'base64')).flatMap((e) =>
          e.parts.map((p) => p.chunk),
        ),
      );
    const mine = chunksOf(indexes.find((i) => i.metadata?.name === `longshore.release.v1.cr.v${revision}`)!);
    for (const other of indexes.filter((i) => i.metadata?.name !== `longshore.release.v1.cr.v${revision}`)) {
      for (const name of chunksOf(other)) mine.delete(name);
    }
    expect(mine.size).toBe(1);
    return [...mine][0]!;
  };

  /** Replaces a chunk by one with the same name and keys but other bytes (it is immutable). */
  const corrupt = async (name: string) => {
    const live = await h.core.readNamespacedSecret({ namespace: NS, name });
    await h.core.deleteNamespacedSecret({ namespace: NS, name });
    const garbage = Object.fromEntries(
      Object.entries(live.data ?? {}).map(([k, v]) => [
        k,
        Buffer.alloc(Buffer.from(v, 'base64').length, 7).toString('base64'),
      ]),
    );
    await h.core.createNamespacedSecret({
      namespace: NS,
      body: {
        metadata: { name, labels: live.metadata?.labels, ownerReferences: live.metadata?.ownerReferences },
        type: live.type,
        immutable: true,
        data: garbage,
      },
    });
  };

  beforeAll(async () => {
    h = await startStorageHarness();
    writer = await h.store();
    for (const [revision, tag] of [
      [1, 'v1'],
      [2, 'v2'],
      [3, 'v3'],
    ] as const) {
      await writer.create({
        app: 'cr',
        release: 'cr',
        revision,
        status: revision === 3 ? 'deployed' : 'superseded',
        content: content(tag),
        description: tag,
      });
    }
  });
  afterAll(() => h.stop());

  it('reports the revision using a corrupt chunk unreadable, and lists and reads the others', async () => {
    await corrupt(await ownChunk(2));
    const reader = await h.store();
    expect(reader.history('cr').map((r) => r.revision)).toEqual([1, 2, 3]);
    expect(reader.deployed('cr')?.revision).toBe(3);
    const err = await reader.read('cr', 2).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreadableRevisionError);
    expect((err as Error).message).toMatch(
      /^release cr revision 2 is unreadable: entry v1 ConfigMap app-ns\/cm-3 does not (inflate|match its digest)/,
    );
    expect(await reader.read('cr', 1)).toEqual(content('v1'));
    expect(await reader.read('cr', 3)).toEqual(content('v3'));
  });

  it('reports the revision using a missing chunk unreadable', async () => {
    const name = await ownChunk(3);
    await h.core.deleteNamespacedSecret({ namespace: NS, name });
    const reader = await h.store();
    const err = await reader.read('cr', 3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreadableRevisionError);
    expect((err as Error).message).toBe(`release cr revision 3 is unreadable: chunk ${name} is missing`);
    expect(reader.history('cr')).toHaveLength(3);
    expect(await reader.read('cr', 1)).toEqual(content('v1'));
  });

  it('rewrites damaged entries on the next write, even for a writer that never read them, healing old revisions', async () => {
    // This store has never read revisions 2 or 3: it plans to reuse their chunks, finds one
    // corrupt and one gone when it adds its ownerReferences, and writes those entries again.
    const unaware = await h.store();
    const requests = h.record();
    await unaware.create({
      app: 'cr',
      release: 'cr',
      revision: 4,
      status: 'deployed',
      content: content('v2'),
      description: 'back to v2',
    });
    await unaware.create({
      app: 'cr',
      release: 'cr',
      revision: 5,
      status: 'deployed',
      content: content('v3'),
      description: 'back to v3',
    });
    // Each time: the index, then (after the check) a chunk with the damaged entry and the index
    // replaced to point at it.
    expect(
      requests()
        .filter((r) => r.verb === 'update')
        .map((r) => r.name),
    ).toEqual(['longshore.release.v1.cr.v4', 'longshore.release.v1.cr.v5']);
    const reader = await h.store();
    expect(await reader.read('cr', 4)).toEqual(content('v2'));
    expect(await reader.read('cr', 5)).toEqual(content('v3'));
    // The entries packed alone again give the same content-addressed chunk names: the corrupt
    // chunk was replaced and the missing one recreated, which heals revisions 2 and 3 as well.
    expect(await reader.read('cr', 2)).toEqual(content('v2'));
    expect(await reader.read('cr', 3)).toEqual(content('v3'));
  });

  it('lists a revision whose manifest is damaged, with the reason, and refuses to read it', async () => {
    const live = await h.core.readNamespacedSecret({ namespace: NS, name: 'longshore.release.v1.cr.v1' });
    await h.core.replaceNamespacedSecret({
      namespace: NS,
      name: 'longshore.release.v1.cr.v1',
      body: { ...live, data: { manifest: Buffer.from('{"v":99}').toString('base64') } },
    });
    const reader = await h.store();
    const first = reader.history('cr')[0]!;
    expect(first).toMatchObject({
      revision: 1,
      objects: [],
      unreadable: 'unsupported manifest version 99 (this reader knows 1)',
    });
    await expect(reader.read('cr', 1)).rejects.toThrow(UnreadableRevisionError);
    expect(reader.history('cr')).toHaveLength(5);
  });
});
