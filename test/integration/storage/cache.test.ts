/**
 * Reads come from the informer caches and the chunk LRU: history, last, deployed, releases and
 * apps.get perform no request at all; a store sees its own writes at once and other writers' through
 * the watch, also across dropped watches and compaction; transient API errors are retried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RevisionExistsError, type SecretReleaseStore } from '../../../src/storage/index.ts';
import { makeContent } from '../../fixtures/storage/content.ts';
import { type StorageHarness, startStorageHarness } from '../../fixtures/storage/harness.ts';
import { until } from '../../helpers/wait.ts';

describe('release storage reads through caches', () => {
  let h: StorageHarness;
  let writer: SecretReleaseStore;

  const content = (tag: string) =>
    makeContent({ objects: 10, bytesPerObject: 1_000, seed: 'cache', changed: { indexes: [0], tag } });

  beforeAll(async () => {
    h = await startStorageHarness();
    writer = await h.store();
    for (const [revision, status] of [
      [1, 'superseded'],
      [2, 'deployed'],
      [3, 'failed'],
    ] as const) {
      await writer.create({
        app: 'web',
        release: 'web',
        revision,
        status,
        content: content(`r${revision}`),
        description: `rev ${revision}`,
        holder: `job-${revision}`,
      });
    }
    await writer.create({
      app: 'web',
      release: 'config-web',
      revision: 1,
      status: 'deployed',
      content: content('cfg'),
      description: 'config',
    });
  });
  afterAll(() => h.stop());

  it('answers history, last, deployed, releases and apps.get after start without any request', async () => {
    const fresh = await h.store();
    const requests = h.record();
    expect(fresh.history('web').map((r) => [r.revision, r.status])).toEqual([
      [1, 'superseded'],
      [2, 'deployed'],
      [3, 'failed'],
    ]);
    expect(fresh.last('web')).toMatchObject({ revision: 3, holder: 'job-3', description: 'rev 3' });
    expect(fresh.deployed('web')?.revision).toBe(2);
    expect(fresh.deployed('web')?.objects).toHaveLength(10);
    expect(fresh.deployed('web')?.chart).toEqual({ name: 'app', version: '1.0.0' });
    expect(fresh.releases('web')).toEqual(['config-web', 'web']);
    expect(fresh.releases()).toEqual(['config-web', 'web']);
    const record = fresh.apps.get('web');
    expect(record).toMatchObject({ app: 'web' });
    expect(record?.spec).toBeUndefined();
    expect(fresh.history('nope')).toEqual([]);
    expect(requests()).toEqual([]);
  });

  it('sees its own writes at once, and reads back what it wrote without a GET', async () => {
    const store = await h.store();
    const requests = h.record();
    await store.create({
      app: 'web',
      release: 'web',
      revision: 4,
      status: 'pending-upgrade',
      content: content('r4'),
      description: 'Upgrade',
    });
    expect(store.last('web')).toMatchObject({ revision: 4, status: 'pending-upgrade' });
    await store.setStatus('web', 4, 'deployed', 'Upgrade complete');
    expect(store.deployed('web')).toMatchObject({ revision: 4, description: 'Upgrade complete' });
    expect(await store.read('web', 4)).toEqual(content('r4'));
    expect(requests().filter((r) => r.verb === 'get')).toEqual([]);
    // Another store learns about it through its watch.
    await until(() => writer.deployed('web')?.revision === 4, 'the writer to see revision 4');
  });

  it('refuses a revision another writer holds, without writing chunks', async () => {
    const store = await h.store();
    const requests = h.record();
    const err = await store
      .create({
        app: 'web',
        release: 'web',
        revision: 4,
        status: 'pending-upgrade',
        content: content('other'),
        description: 'Upgrade',
        holder: 'job-x',
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RevisionExistsError);
    expect((err as Error).message).toBe(
      'release web revision 4 already exists: another writer got there first',
    );
    expect(requests().filter((r) => r.verb === 'create')).toEqual([]);
  });

  it('stays correct across dropped watches, compaction and transient errors', async () => {
    const reader = await h.store();
    h.sim.dropWatches();
    h.sim.compact();
    h.sim.faults.set([
      { verb: 'create', resource: '/secrets', errorRate: 1, status: 500, limit: 2 },
      { verb: 'patch', resource: '/secrets', errorRate: 1, status: 429, retryAfterSeconds: 0, limit: 1 },
    ]);
    await writer.create({
      app: 'web',
      release: 'web',
      revision: 5,
      status: 'deployed',
      content: content('r5'),
      description: 'Upgrade',
    });
    h.sim.faults.clear();
    await until(
      () => reader.last('web')?.revision === 5,
      'the reader to see revision 5 after its watch was cut',
    );
    h.sim.compact();
    h.sim.dropWatches();
    await writer.setStatus('web', 5, 'superseded');
    await until(() => reader.last('web')?.status === 'superseded', 'the reader to relist after compaction');
    expect(await reader.read('web', 5)).toEqual(content('r5'));
  });
});
