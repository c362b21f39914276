/** The label-selected informer cache against kube-sim: events reach listeners after the cache holds them. */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InformerCache } from '../../../src/kube/informer-cache.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

let k: SimClients;

beforeAll(async () => {
  k = await startSimWithClients({ controllers: false });
});

afterAll(async () => {
  await k?.sim.stop();
});

describe('InformerCache.onChange', () => {
  it('calls listeners on add, update and delete of selected objects, with the cache already updated', async () => {
    const cache = new InformerCache<k8s.V1ConfigMap>({
      kc: k.kc,
      path: '/api/v1/namespaces/default/configmaps',
      labelSelector: 'watched=yes',
      list: () => k.core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'watched=yes' }),
    });
    await cache.start();
    const seen: string[] = [];
    const unsubscribe = cache.onChange(() => {
      seen.push(cache.get('default', 'cm')?.data?.v ?? 'gone');
    });
    try {
      await k.core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'cm', labels: { watched: 'yes' } }, data: { v: '1' } },
      });
      await k.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'other' } } });
      await until(() => (seen.length >= 1 ? true : undefined), 'the add event');
      await k.core.patchNamespacedConfigMap(
        { name: 'cm', namespace: 'default', body: { data: { v: '2' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await until(() => (seen.length >= 2 ? true : undefined), 'the update event');
      await k.core.deleteNamespacedConfigMap({ name: 'cm', namespace: 'default' });
      await until(() => (seen.length >= 3 ? true : undefined), 'the delete event');
      expect(seen).toEqual(['1', '2', 'gone']);
      unsubscribe();
      await k.core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'cm', labels: { watched: 'yes' } }, data: { v: '3' } },
      });
      await until(() => cache.get('default', 'cm'), 'the cache to see the new object');
      expect(seen).toHaveLength(3);
    } finally {
      await cache.stop();
    }
  });
});

describe('InformerCache.listByLabel', () => {
  it('finds objects by the indexed label as a filtered list would, through writes, deletions and a relist', async () => {
    const ns = 'default';
    const cache = new InformerCache<k8s.V1ConfigMap>({
      kc: k.kc,
      path: `/api/v1/namespaces/${ns}/configmaps`,
      labelSelector: 'indexed=yes',
      list: () => k.core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'indexed=yes' }),
      indexLabel: 'release',
    });
    const create = (name: string, release: string) =>
      k.core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name, labels: { indexed: 'yes', release } } },
      });
    const byScan = (release: string) =>
      cache
        .list(ns)
        .filter((o) => o.metadata?.labels?.release === release)
        .map((o) => o.metadata!.name)
        .sort();
    const byIndex = (release: string) =>
      cache
        .listByLabel(release, ns)
        .map((o) => o.metadata!.name)
        .sort();
    const agree = () => {
      for (const release of ['a', 'b', 'c']) expect(byIndex(release), release).toEqual(byScan(release));
    };
    await create('before-a', 'a');
    await cache.start();
    try {
      await cache.synced();
      expect(byIndex('a')).toEqual(['before-a']);
      // A write this process made is listed at once, before its watch event.
      cache.wrote(await create('a-2', 'a'));
      expect(byIndex('a')).toEqual(['a-2', 'before-a']);
      await create('b-1', 'b');
      await until(() => (byIndex('b').length === 1 ? true : undefined), 'b-1 on the watch');
      agree();
      // A deletion this process made hides the object at once; the DELETED event removes it.
      await k.core.deleteNamespacedConfigMap({ name: 'before-a', namespace: ns });
      cache.deleted(ns, 'before-a');
      expect(byIndex('a')).toEqual(['a-2']);
      // Deleted while no watch runs, then a relist after compaction: the relist's view holds.
      await cache.stop();
      await k.core.deleteNamespacedConfigMap({ name: 'b-1', namespace: ns });
      await create('c-1', 'c');
      k.sim.compact();
      await cache.start();
      await until(
        () => (byIndex('c').length === 1 && byIndex('b').length === 0 ? true : undefined),
        'the relist',
      );
      agree();
      expect(byIndex('none')).toEqual([]);
      expect(byIndex('a')).toEqual(['a-2']);
    } finally {
      await cache.stop();
    }
  });
});

describe('InformerCache dropManagedFields', () => {
  it('holds listed, watched and written objects without managedFields, leaving the caller its answer', async () => {
    const labels = { dropped: 'yes' };
    const make = (name: string, v: string) =>
      k.core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name, labels }, data: { v } },
      });
    const listedBefore = await make('mf-listed', '1');
    expect(listedBefore.metadata?.managedFields?.length).toBeGreaterThan(0);
    const cache = new InformerCache<k8s.V1ConfigMap>({
      kc: k.kc,
      path: '/api/v1/namespaces/default/configmaps',
      labelSelector: 'dropped=yes',
      list: () => k.core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'dropped=yes' }),
      dropManagedFields: true,
    });
    await cache.start();
    try {
      expect(cache.get('default', 'mf-listed')?.data?.v).toBe('1');
      expect(cache.get('default', 'mf-listed')?.metadata?.managedFields).toBeUndefined();

      // Written here: the overlay holds a copy without it; the answer keeps its own.
      const written = await make('mf-written', '2');
      cache.wrote(written);
      expect(written.metadata?.managedFields?.length).toBeGreaterThan(0);
      expect(cache.get('default', 'mf-written')?.data?.v).toBe('2');
      expect(cache.get('default', 'mf-written')?.metadata?.managedFields).toBeUndefined();

      // Watched: an add and an update from elsewhere.
      await make('mf-watched', '3');
      await until(() => cache.get('default', 'mf-watched'), 'the add event');
      await k.core.patchNamespacedConfigMap(
        { name: 'mf-watched', namespace: 'default', body: { data: { v: '4' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await until(
        () => (cache.get('default', 'mf-watched')?.data?.v === '4' ? true : undefined),
        'the update',
      );
      for (const o of cache.list('default')) expect(o.metadata?.managedFields).toBeUndefined();
      expect(
        cache
          .list('default')
          .map((o) => o.metadata?.name)
          .sort(),
      ).toEqual(['mf-listed', 'mf-watched', 'mf-written']);
    } finally {
      await cache.stop();
    }
  });
});
