/**
 * A paged list whose continue token expires between pages (410 "The provided continue parameter is
 * too old", as after etcd compaction) starts again without it, as the Kubernetes API asks of a
 * client (ListOptions.continue): the orphan sweep and the fresh list of app records used to fail
 * on it (found by the chaos suite, docs/testing.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretApi } from '../../../src/storage/secret-api.ts';
import { NS, type StorageHarness, startStorageHarness } from '../../fixtures/storage/harness.ts';

const SELECTOR = 'app.kubernetes.io/managed-by=longshore,longshore.dev/kind=chunk';
const NAMES = Array.from({ length: 10 }, (_, i) => `sh.longshore.chunk.web.${String(i).padStart(2, '0')}`);

describe('paged Secret lists across an expired continue token', () => {
  let h: StorageHarness;
  let api: SecretApi;

  beforeAll(async () => {
    h = await startStorageHarness();
    await h.core.createNamespace({ body: { metadata: { name: NS } } }).catch(() => undefined);
    for (const name of NAMES)
      await h.core.createNamespacedSecret({
        namespace: NS,
        body: {
          metadata: {
            name,
            labels: { 'app.kubernetes.io/managed-by': 'longshore', 'longshore.dev/kind': 'chunk' },
          },
          data: { x: Buffer.from(name).toString('base64') },
        },
      });
    api = new SecretApi(h.core, NS);
  });
  afterAll(() => h.stop());

  /** After the first page: a write and a compaction, so the first page's token is too old. */
  const expireAfterFirstPage = () => {
    let pages = 0;
    return async () => {
      if (++pages !== 1) return;
      await h.core.createNamespacedSecret({
        namespace: NS,
        body: { metadata: { name: `unrelated-${pages}` } },
      });
      h.sim.compact();
    };
  };

  it('kube-sim refuses the stale token (so the case below is real)', async () => {
    const first = await api.listPage(SELECTOR, 4);
    await h.core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'unrelated-probe' } } });
    h.sim.compact();
    await expect(api.listPage(SELECTOR, 4, first.cont)).rejects.toThrow(/continue parameter is too old/);
  });

  it('starts the list again and hands every item over, telling the visitor it restarted', async () => {
    const expire = expireAfterFirstPage();
    let seen: string[] = [];
    let restarts = 0;
    await api.forEachPage(
      SELECTOR,
      4,
      async (items) => {
        seen.push(...items.map((s) => s.metadata?.name ?? ''));
        await expire();
      },
      () => {
        restarts++;
        seen = [];
      },
    );
    expect(restarts).toBe(1);
    expect(seen).toEqual(NAMES);
  });
});
