/**
 * History cap, release deletion, orphan sweeping and ownership: what is deleted, what never is,
 * and that deleting an app record lets the simulator's garbage collector remove all of the app's
 * release Secrets.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReleaseStatus, SecretReleaseStore } from '../../../src/storage/index.ts';
import { decodeManifest } from '../../../src/storage/manifest.ts';
import { makeContent } from '../../fixtures/storage/content.ts';
import { type StorageHarness, startStorageHarness } from '../../fixtures/storage/harness.ts';

const chunkNamesOf = (index: V1Secret) =>
  decodeManifest(Buffer.from(index.data?.manifest ?? '', 'base64')).flatMap((e) =>
    e.parts.map((p) => p.chunk),
  );

describe('release storage lifecycle', () => {
  let h: StorageHarness;
  let store: SecretReleaseStore;

  const spec = { objects: 20, bytesPerObject: 3_000, incompressible: true };
  const write = (app: string, release: string, revision: number, status: ReleaseStatus = 'superseded') =>
    store.create({
      app,
      release,
      revision,
      status,
      content: makeContent({
        ...spec,
        seed: release,
        changed: { indexes: [revision % 20], tag: `r${revision}` },
      }),
      description: `rev ${revision}`,
    });

  beforeAll(async () => {
    h = await startStorageHarness();
    // A small chunk budget, so revisions spread over several chunks and pruning has chunks to free.
    store = await h.store({ chunkBytes: 20 * 1024 });
  });
  afterAll(() => h.stop());

  it('prunes history to 10 revisions, keeping the last deployed one, and frees unreferenced chunks', async () => {
    await write('pr', 'pr', 1);
    await write('pr', 'pr', 2, 'deployed');
    for (let rev = 3; rev <= 14; rev++) await write('pr', 'pr', rev, 'failed');
    const chunksBefore = (await h.secrets('chunk')).length;

    const result = await store.prune('pr');
    expect(result.revisions).toBe(3);
    expect(result.chunks).toBeGreaterThan(0);
    expect(store.history('pr').map((r) => r.revision)).toEqual([2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(await store.prune('pr')).toEqual({ revisions: 0, chunks: 0 });

    await h.sim.settle();
    const indexes = await h.secrets('index');
    const chunks = await h.secrets('chunk');
    expect(chunks.length).toBe(chunksBefore - result.chunks);
    const referenced = new Set(indexes.flatMap(chunkNamesOf));
    const app = (await h.secrets('app')).find((a) => a.metadata?.name === 'longshore.app.pr')!;
    for (const chunk of chunks) {
      expect(referenced.has(chunk.metadata!.name!)).toBe(true);
      const owners = chunk.metadata?.ownerReferences ?? [];
      // Never ownerless: the app record, plus every index that uses it.
      expect(owners.map((o) => o.uid)).toContain(app.metadata?.uid);
      const users = indexes.filter((i) => chunkNamesOf(i).includes(chunk.metadata!.name!));
      expect(owners.map((o) => o.uid).sort()).toEqual(
        [app.metadata!.uid!, ...users.map((u) => u.metadata!.uid!)].sort(),
      );
    }
    const fresh = await h.store();
    for (const rev of [2, 5, 14]) {
      expect(await fresh.read('pr', rev)).toEqual(
        makeContent({ ...spec, seed: 'pr', changed: { indexes: [rev % 20], tag: `r${rev}` } }),
      );
    }
  });

  it('keep=0 means unlimited history', async () => {
    expect(await store.prune('pr', 0)).toEqual({ revisions: 0, chunks: 0 });
  });

  it('deletes a whole release, indexes then chunks', async () => {
    for (let rev = 1; rev <= 3; rev++) await write('pr', 'gone', rev);
    await store.deleteRelease('gone');
    expect(store.history('gone')).toEqual([]);
    expect(store.releases('pr')).toEqual(['pr']);
    const left = (await h.secrets()).filter((s) => s.metadata?.labels?.['longshore.dev/release'] === 'gone');
    expect(left).toEqual([]);
  });

  it('sweeps chunks left by a writer that died before its index, sparing young ones by default', async () => {
    const dying = await h.store({
      chunkBytes: 20 * 1024,
      hooks: {
        afterStep: (step) => {
          if (step === 'chunk') throw new Error('simulated death after the first chunk');
        },
      },
    });
    await expect(write('pr', 'pr', 15).then(() => undefined)).resolves.toBeUndefined();
    const orphaned = dying.create({
      app: 'pr',
      release: 'pr',
      revision: 16,
      status: 'pending-upgrade',
      content: makeContent({ objects: 20, bytesPerObject: 3_000, incompressible: true, seed: 'other' }),
      description: 'dies',
    });
    await expect(orphaned).rejects.toThrow('simulated death');
    expect(await store.sweepOrphans()).toBe(0); // younger than the 10-minute grace
    // A dry run (prune --dry-run) names the orphan and deletes nothing; another app's filter skips it.
    const named: string[] = [];
    expect(await store.sweepOrphans({ minAgeMs: 0, dryRun: true, onOrphan: (c) => named.push(c) })).toBe(1);
    expect(named).toHaveLength(1);
    expect(await store.sweepOrphans({ minAgeMs: 0, app: 'someone-else' })).toBe(0);
    expect(await store.sweepOrphans({ minAgeMs: 0, app: 'pr', dryRun: true })).toBe(1);
    const swept: string[] = [];
    expect(await store.sweepOrphans({ minAgeMs: 0, onOrphan: (c) => swept.push(c) })).toBe(1);
    expect(swept).toEqual(named);
    expect(await store.sweepOrphans({ minAgeMs: 0 })).toBe(0);
    expect(store.history('pr').at(-1)?.revision).toBe(15);
  });

  it('deleting the app record lets the garbage collector remove every release Secret of the app', async () => {
    const other = await h.store();
    for (let rev = 1; rev <= 3; rev++) {
      await other.create({
        app: 'doomed',
        release: rev === 3 ? 'config-doomed' : 'doomed',
        revision: rev,
        status: 'deployed',
        content: makeContent({
          objects: 5,
          bytesPerObject: 300_000,
          incompressible: true,
          seed: `doomed-${rev}`,
        }),
        description: 'x',
      });
    }
    const ofApp = async () =>
      (await h.secrets()).filter((s) => s.metadata?.labels?.['longshore.dev/app'] === 'doomed');
    expect((await ofApp()).length).toBeGreaterThan(5);
    await other.apps.delete('doomed');
    expect(other.apps.get('doomed')).toBeUndefined();
    expect(other.releases('doomed')).toEqual([]);
    await h.sim.settle();
    expect(await ofApp()).toEqual([]);
    // The other app's history is untouched.
    expect(store.history('pr').length).toBe(12);
  });
});
