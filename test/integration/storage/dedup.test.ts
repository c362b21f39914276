/**
 * Unchanged content is not written again: measured in bytes of write requests to Secrets in the
 * simulator's request log, for a 50-object release whose second revision changes one object.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretReleaseStore } from '../../../src/storage/index.ts';
import { makeContent } from '../../fixtures/storage/content.ts';
import {
  isWrite,
  type StorageHarness,
  secretBytesWritten,
  startStorageHarness,
} from '../../fixtures/storage/harness.ts';

describe('release storage deduplication', () => {
  let h: StorageHarness;
  let store: SecretReleaseStore;

  beforeAll(async () => {
    h = await startStorageHarness();
    store = await h.store();
  });
  afterAll(() => h.stop());

  // Objects of about 2 KiB that gzip cannot shrink much: a conservative stand-in for rendered
  // Deployments and Services (real ones compress better, making the saving larger still).
  const spec = { objects: 50, bytesPerObject: 2_000, incompressible: true, seed: 'dedup' };

  it('a revision changing one object of fifty writes a small fraction of the install', async () => {
    const install = h.record();
    await store.create({
      app: 'dd',
      release: 'dd',
      revision: 1,
      status: 'deployed',
      content: makeContent(spec),
      description: 'Install',
    });
    const installBytes = secretBytesWritten(install());

    const upgrade = h.record();
    const changed = makeContent({ ...spec, changed: { indexes: [17], tag: 'v2' } });
    const info = await store.create({
      app: 'dd',
      release: 'dd',
      revision: 2,
      status: 'deployed',
      content: changed,
      description: 'Upgrade',
    });
    const upgradeBytes = secretBytesWritten(upgrade());
    const objectBytes = Buffer.byteLength(JSON.stringify(changed.objects[17]));
    console.log(
      `50-object install: ${installBytes} bytes written; 1-object change: ${upgradeBytes} bytes ` +
        `(${((100 * upgradeBytes) / installBytes).toFixed(1)}%; the changed object is ${objectBytes} bytes of JSON)`,
    );
    expect(upgradeBytes).toBeLessThan(installBytes * 0.1);
    // One new chunk (the changed object), the index, ownerReferences on the two chunks it uses,
    // and the index marked chunks-owned.
    const writes = upgrade().filter(isWrite);
    expect(writes.map((r) => r.verb).sort()).toEqual(['create', 'create', 'patch', 'patch', 'patch']);
    expect(info.objects[17]?.digest).not.toBe(store.history('dd')[0]?.objects[17]?.digest);
    expect(await (await h.store()).read('dd', 2)).toEqual(changed);
  });

  it('a revision with the same content writes only its index and ownerReferences', async () => {
    const chunksBefore = (await h.secrets('chunk')).length;
    const same = h.record();
    await store.create({
      app: 'dd',
      release: 'dd',
      revision: 3,
      status: 'deployed',
      content: makeContent({ ...spec, changed: { indexes: [17], tag: 'v2' } }),
      description: 'Redeploy',
    });
    // Creates are POSTs to the collection (no name in the log): one, the index.
    expect(same().filter((r) => r.verb === 'create')).toHaveLength(1);
    expect((await h.secrets('chunk')).length).toBe(chunksBefore);
    expect(store.last('dd')?.revision).toBe(3);
  });

  it('bounds the chunks a revision references after many small changes', async () => {
    // Each revision changes a different object: without compaction revision 12 would point into
    // twelve chunks (and patch each of them).
    for (let rev = 4; rev <= 14; rev++) {
      await store.create({
        app: 'dd',
        release: 'dd',
        revision: rev,
        status: 'deployed',
        content: makeContent({ ...spec, changed: { indexes: [17, rev], tag: `r${rev}` } }),
        description: `Upgrade ${rev}`,
      });
    }
    const secrets = await h.secrets('index');
    const last = secrets.find((s) => s.metadata?.name === 'longshore.release.v1.dd.v14')!;
    const owners = (await h.secrets('chunk')).filter((c) =>
      c.metadata?.ownerReferences?.some((o) => o.uid === last.metadata?.uid),
    );
    // 100 KiB fit one chunk: at most 1 + 4 (slack).
    expect(owners.length).toBeLessThanOrEqual(5);
    const expected = makeContent({ ...spec, changed: { indexes: [17, 14], tag: 'r14' } });
    expect(await (await h.store()).read('dd', 14)).toEqual(expected);
  });
});
