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
