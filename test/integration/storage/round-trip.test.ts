/**
 * Round trips through the real client-node and kube-sim over HTTP, from 1 KiB to 20 MiB of
 * rendered JSON, compressible and not: what is read equals what was stored, no Secret's data
 * reaches 1,048,576 bytes, no request body 3 MiB; over the cap a clear error and nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermanentError } from '../../../src/core/errors.ts';
import { ReleaseTooLargeError, type SecretReleaseStore } from '../../../src/storage/index.ts';
import { makeContent } from '../../fixtures/storage/content.ts';
import {
  dataBytes,
  isWrite,
  type StorageHarness,
  startStorageHarness,
} from '../../fixtures/storage/harness.ts';

describe('release storage round trip', () => {
  let h: StorageHarness;
  let store: SecretReleaseStore;

  beforeAll(async () => {
    h = await startStorageHarness();
    store = await h.store({ maxReleaseBytes: 24 * 1024 * 1024 });
  });
  afterAll(() => h.stop());

  const cases = [
    { name: '1 KiB', objects: 1, bytesPerObject: 700 },
    { name: '100 KiB compressible', objects: 50, bytesPerObject: 2_000 },
    { name: '3 MiB incompressible, 30 objects', objects: 30, bytesPerObject: 100_000, incompressible: true },
    {
      name: '5 MiB incompressible in one object',
      objects: 1,
      bytesPerObject: 5 * 1024 * 1024,
      incompressible: true,
    },
    { name: '20 MiB incompressible', objects: 40, bytesPerObject: 512 * 1024, incompressible: true },
  ];

  for (const [i, spec] of cases.entries()) {
    it(`stores and reads back ${spec.name}`, async () => {
      const release = `rt-${i}`;
      const content = makeContent({ ...spec, seed: release });
      const requests = h.record();
      const started = Date.now();
      const info = await store.create({
        app: 'rt',
        release,
        revision: 1,
        status: 'deployed',
        content,
        description: `Install ${spec.name}`,
      });
      const wrote = Date.now();
      expect(info).toMatchObject({ release, revision: 1, status: 'deployed', app: 'rt' });
      expect(info.objects).toHaveLength(spec.objects);

      // A fresh store (empty chunk cache) reads it from the API.
      const reader = await h.store();
      expect(await reader.read(release, 1)).toEqual(content);
      const read = Date.now();
      console.log(`${spec.name}: write ${wrote - started} ms, read ${read - wrote} ms`);

      for (const r of requests()) expect(r.bytesIn).toBeLessThan(3 * 1024 * 1024);
      for (const s of await h.secrets()) expect(dataBytes(s)).toBeLessThanOrEqual(900 * 1024);
      // The first write meets a missing namespace (404), creates it and writes again.
      expect(requests().filter((r) => isWrite(r) && r.status >= 400 && i > 0)).toEqual([]);
    });
  }

  it('refuses a release over the cap before writing anything, leaving the previous revision intact', async () => {
    const small = await h.store({ maxReleaseBytes: 2 * 1024 * 1024 });
    const first = makeContent({ objects: 5, bytesPerObject: 10_000, seed: 'cap' });
    await small.create({
      app: 'cap',
      release: 'cap',
      revision: 1,
      status: 'deployed',
      content: first,
      description: 'Install',
    });
    const requests = h.record();
    const big = makeContent({
      objects: 6,
      bytesPerObject: 512 * 1024,
      incompressible: true,
      seed: 'cap-big',
    });
    const refused = await small
      .create({
        app: 'cap',
        release: 'cap',
        revision: 2,
        status: 'pending-upgrade',
        content: big,
        description: 'Upgrade',
      })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ReleaseTooLargeError);
    expect((refused as Error).message).toMatch(
      /^release cap revision 2 is 2\.\d MiB compressed \(3\.0 MiB rendered\), over the 2\.0 MiB limit of release storage; nothing was written$/,
    );
    expect((refused as ReleaseTooLargeError).sizes).toMatchObject({ limitBytes: 2 * 1024 * 1024 });
    expect(requests().filter(isWrite)).toEqual([]);
    expect(small.history('cap').map((r) => r.revision)).toEqual([1]);
    expect(await small.read('cap', 1)).toEqual(first);
  });

  it('surfaces a permanent API error at once, with the server message', async () => {
    // A namespace name the API server refuses: the first write finds no namespace, creating it fails.
    const bad = await h.store({ namespace: 'Not_A_Namespace', retry: { attempts: 5, baseMs: 1 } });
    const requests = h.record();
    const err = await bad.apps.ensure('web').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toMatch(
      /^create Namespace Not_A_Namespace: Namespace "Not_A_Namespace" is invalid: metadata\.name: Invalid value: "Not_A_Namespace"/,
    );
    // Not retried: one create of the Secret (404), one of the namespace (422).
    expect(requests().map((r) => [r.verb, r.resource, r.status])).toEqual([
      ['create', '/secrets', 404],
      ['create', '/namespaces', 422],
    ]);
  });
});
