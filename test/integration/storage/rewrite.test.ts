/**
 * `rewrite` — replacing the content of stored revisions, as the redaction of Secret values in old
 * history does: against kube-sim over HTTP with the real driver. A writer that stops after each
 * write step (the step hook throws, as a crash would end it) leaves every revision readable, and a
 * fresh store (another worker) finishes the job; repeating it writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactContent, ValueDigester } from '../../../src/releases/secret-values.ts';
import type {
  ReleaseContent,
  ReleaseObject,
  SecretReleaseStore,
  WriteStep,
} from '../../../src/storage/index.ts';
import { TEST_SECRET_DIGEST_KEY } from '../../fixtures/digest-key.ts';
import { isWrite, NS, type StorageHarness, startStorageHarness } from '../../fixtures/storage/harness.ts';
import { valuesFoundIn } from '../../helpers/stored-secrets.ts';

const digester = new ValueDigester(TEST_SECRET_DIGEST_KEY);

function configContent(release: string, value: string): ReleaseContent {
  return {
    chart: { name: 'config', version: '1.0.0' },
    values: { app: release, namespace: 'default', keys: ['TOKEN'] },
    objects: [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: release, namespace: 'default', labels: { app: release } },
        type: 'Opaque',
        data: { TOKEN: Buffer.from(value).toString('base64') },
      } as ReleaseObject,
    ],
  };
}

/** Two revisions with values, as written before redaction (they share the chart entry's chunk). */
async function oldHistory(store: SecretReleaseStore, release: string): Promise<string[]> {
  const values = [`${release}-token-one`, `${release}-token-two`];
  for (const [i, value] of values.entries()) {
    await store.create({
      app: 'rw',
      release,
      revision: i + 1,
      status: i === 0 ? 'superseded' : 'deployed',
      content: configContent(release, value),
      description: `revision ${i + 1}`,
      holder: `job-${i + 1}`,
    });
  }
  return values;
}

class Crash extends Error {}

describe('rewriting stored revisions', () => {
  let h: StorageHarness;
  beforeAll(async () => {
    h = await startStorageHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('replaces the content, keeps the metadata, deletes the chunks that held values; again writes nothing', async () => {
    const store = await h.store();
    const values = await oldHistory(store, 'rw-plain');
    const before = store.history('rw-plain').map((r) => [r.revision, r.status, r.description, r.holder]);
    for (const revision of [1, 2]) {
      const content = await store.read('rw-plain', revision);
      const info = await store.rewrite({
        release: 'rw-plain',
        revision,
        content: redactContent(content, digester),
        redacted: true,
      });
      expect(info.redacted).toBe(true);
    }
    expect(store.history('rw-plain').map((r) => [r.revision, r.status, r.description, r.holder])).toEqual(
      before,
    );
    expect(await valuesFoundIn(h.core, NS, values)).toEqual([]);
    expect(await store.sweepOrphans({ minAgeMs: 0 })).toBe(0);

    const fresh = await h.store();
    const content = await fresh.read('rw-plain', 2);
    expect(content.objects[0]).toMatchObject({
      redactedData: { TOKEN: expect.stringMatching(/^hmac-sha256:/) },
    });
    const requests = h.record();
    await fresh.rewrite({ release: 'rw-plain', revision: 2, content, redacted: true });
    expect(
      requests()
        .filter(isWrite)
        .map((r) => `${r.verb} ${r.name}`),
    ).toEqual([
      // The closing merge patch (nothing left to delete) is the only write.
      'patch longshore.release.v1.rw-plain.v2',
    ]);
  });

  for (const crashAt of ['chunks', 'index', 'owner'] as WriteStep[]) {
    it(`a writer stopped after step "${crashAt}" leaves history readable; another store finishes`, async () => {
      const release = `rw-crash-${crashAt}`;
      const setup = await h.store();
      const values = await oldHistory(setup, release);
      const crashing = await h.store({
        hooks: {
          afterStep: (step) => {
            if (step === crashAt) throw new Crash(`stopped after ${step}`);
          },
        },
      });
      const content = await crashing.read(release, 2);
      await expect(
        crashing.rewrite({ release, revision: 2, content: redactContent(content, digester), redacted: true }),
      ).rejects.toThrow(Crash);

      const other = await h.store();
      for (const revision of [1, 2]) await other.read(release, revision);
      for (const revision of [1, 2]) {
        const stored = await other.read(release, revision);
        await other.rewrite({ release, revision, content: redactContent(stored, digester), redacted: true });
      }
      expect(other.history(release).map((r) => [r.revision, r.status, r.redacted])).toEqual([
        [1, 'superseded', true],
        [2, 'deployed', true],
      ]);
      for (const revision of [1, 2]) await other.read(release, revision);
      expect(await valuesFoundIn(h.core, NS, values)).toEqual([]);
      const indexes = await h.secrets('index');
      for (const index of indexes.filter((s) => s.metadata?.labels?.['longshore.dev/release'] === release)) {
        expect(index.metadata?.annotations?.['longshore.dev/replaced-chunks']).toBeUndefined();
        expect(index.metadata?.annotations?.['longshore.dev/chunks-owned']).toBe('true');
      }
    });
  }
});
