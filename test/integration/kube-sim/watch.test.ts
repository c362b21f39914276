/**
 * Watch through client-node: initial ADDED events, resume from a resourceVersion, 410 Expired
 * after compaction, clean timeouts, bookmarks, selector transitions, and an informer that relists
 * after dropped watches and compaction and ends up with the right cache.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

interface Seen {
  type: string;
  name?: string;
  rv?: string;
  object: Record<string, unknown>;
}

const ROOT_CA = 'kube-root-ca.crt';

describe('kube-sim watch', () => {
  let c: SimClients;
  const ns = 'watching';
  const path = `/api/v1/namespaces/${ns}/configmaps`;

  beforeAll(async () => {
    c = await startSimWithClients({ bookmarkIntervalMs: 200, controllers: false });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  function watch(query: Record<string, string | number | boolean | undefined>) {
    const seen: Seen[] = [];
    let ended: { err?: unknown } | undefined;
    const request = new k8s.Watch(c.kc).watch(
      path,
      query,
      (type, object: { metadata?: { name?: string; resourceVersion?: string } }) => {
        // Every namespace has the root CA ConfigMap (rootcacertpublisher), as on a real cluster.
        if (object.metadata?.name === ROOT_CA) return;
        seen.push({
          type,
          ...(object.metadata?.name ? { name: object.metadata.name } : {}),
          ...(object.metadata?.resourceVersion ? { rv: object.metadata.resourceVersion } : {}),
          object: object as Record<string, unknown>,
        });
      },
      (err) => {
        ended = { err };
      },
    );
    return { seen, ended: () => ended, abort: async () => (await request).abort() };
  }

  it('starts with ADDED for existing objects, then streams changes', async () => {
    await c.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' } } });
    const w = watch({});
    await until(() => w.seen.length >= 1 || undefined, 'the initial ADDED');
    await c.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b' } } });
    await c.core.patchNamespacedConfigMap(
      { namespace: ns, name: 'b', body: { data: { x: '1' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await c.core.deleteNamespacedConfigMap({ namespace: ns, name: 'b' });
    await until(() => w.seen.length >= 4 || undefined, 'four events');
    expect(w.seen.map((e) => `${e.type} ${e.name}`)).toEqual([
      'ADDED a',
      'ADDED b',
      'MODIFIED b',
      'DELETED b',
    ]);
    expect(w.seen[0]!.object.kind).toBe('ConfigMap');
    // The DELETED event carries the revision of the deletion.
    expect(Number(w.seen[3]!.rv)).toBeGreaterThan(Number(w.seen[2]!.rv));
    await w.abort();
  });

  it('resumes after a resourceVersion without replaying older events', async () => {
    const cm = await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'resume' } },
    });
    await c.core.patchNamespacedConfigMap(
      { namespace: ns, name: 'resume', body: { data: { v: '2' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    const w = watch({ resourceVersion: cm.metadata!.resourceVersion! });
    await until(() => w.seen.length >= 1 || undefined, 'the replayed event');
    expect(w.seen.map((e) => `${e.type} ${e.name}`)).toEqual(['MODIFIED resume']);
    await w.abort();
  });

  it('answers a too-old resourceVersion with one ERROR event (410 Expired) and closes', async () => {
    const old = (await c.core.listNamespacedConfigMap({ namespace: ns })).metadata!.resourceVersion!;
    await c.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'after-old' } } });
    c.sim.compact();
    const w = watch({ resourceVersion: old });
    await until(() => w.ended() || undefined, 'the stream to end');
    expect(w.seen).toHaveLength(1);
    expect(w.seen[0]!.type).toBe('ERROR');
    expect(w.seen[0]!.object).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Expired',
      code: 410,
    });
    expect(String(w.seen[0]!.object.message)).toMatch(
      new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`),
    );
  });

  it('closes cleanly at timeoutSeconds and sends bookmarks when asked', async () => {
    const w = watch({
      timeoutSeconds: 1,
      allowWatchBookmarks: true,
      resourceVersion: String(c.sim.store.currentRv),
    });
    await until(() => w.ended() || undefined, 'the timeout', { timeoutMs: 5000 });
    expect(w.ended()!.err).toBeFalsy();
    const bookmarks = w.seen.filter((e) => e.type === 'BOOKMARK');
    expect(bookmarks.length).toBeGreaterThan(0);
    expect(bookmarks[0]!.object).toMatchObject({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { resourceVersion: expect.any(String) },
    });
  });

  it('turns objects moving into and out of a label selector into ADDED and DELETED', async () => {
    const w = watch({ labelSelector: 'tier=web', resourceVersion: String(c.sim.store.currentRv) });
    const mergeOpts = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'moving', labels: { tier: 'db' } } },
    });
    await c.core.patchNamespacedConfigMap(
      { namespace: ns, name: 'moving', body: { metadata: { labels: { tier: 'web' } } } },
      mergeOpts,
    );
    await c.core.patchNamespacedConfigMap(
      { namespace: ns, name: 'moving', body: { data: { a: '1' } } },
      mergeOpts,
    );
    await c.core.patchNamespacedConfigMap(
      { namespace: ns, name: 'moving', body: { metadata: { labels: { tier: 'db' } } } },
      mergeOpts,
    );
    await until(() => w.seen.length >= 3 || undefined, 'three events');
    expect(w.seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    await w.abort();
  });

  it('keeps an informer right through dropped watches and compaction (relist on 410)', async () => {
    await c.core.createNamespace({ body: { metadata: { name: 'informed' } } });
    const informer = k8s.makeInformer(c.kc, '/api/v1/namespaces/informed/configmaps', () =>
      c.core.listNamespacedConfigMap({ namespace: 'informed' }),
    );
    let stopping = false;
    informer.on('error', () => {
      // What applications do: restart after a pause (a dropped watch stops client-node's informer).
      if (!stopping) setTimeout(() => void informer.start().catch(() => undefined), 100);
    });
    await informer.start();
    const names = () =>
      informer
        .list()
        .map((o) => o.metadata!.name)
        .filter((name) => name !== ROOT_CA)
        .sort();

    await c.core.createNamespacedConfigMap({ namespace: 'informed', body: { metadata: { name: 'one' } } });
    await until(() => names().includes('one') || undefined, 'the informer to see one');

    // The connection drops while changes happen.
    c.sim.dropWatches();
    await c.core.createNamespacedConfigMap({ namespace: 'informed', body: { metadata: { name: 'two' } } });
    await until(() => names().includes('two') || undefined, 'the informer to see two after reconnecting', {
      timeoutMs: 10_000,
    });

    // History is compacted while it is disconnected: it must relist, and notice the deletion.
    c.sim.dropWatches();
    c.sim.compact();
    await c.core.deleteNamespacedConfigMap({ namespace: 'informed', name: 'one' });
    await c.core.createNamespacedConfigMap({ namespace: 'informed', body: { metadata: { name: 'three' } } });
    c.sim.compact();
    await until(
      () => (JSON.stringify(names()) === JSON.stringify(['three', 'two']) ? true : undefined),
      'the informer to relist',
      {
        timeoutMs: 10_000,
      },
    );
    stopping = true;
    await informer.stop();
  });
});
