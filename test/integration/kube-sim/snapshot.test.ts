/**
 * Snapshot and restore of the whole simulated cluster (`npm start` keeps state across restarts;
 * tests can start from fixtures): objects, uids and the resourceVersion counter survive.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimWithClients } from '../../helpers/sim.ts';

describe('kube-sim snapshots', () => {
  it('restores objects, uids, resourceVersions and allocated clusterIPs', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'kube-sim-snap-')), 'cluster.json');
    const first = await startSimWithClients({ snapshotPath: path });
    await first.core.createNamespace({ body: { metadata: { name: 'kept' } } });
    const cm = await first.core.createNamespacedConfigMap({
      namespace: 'kept',
      body: { metadata: { name: 'cfg' }, data: { a: '1' } },
    });
    const svc = await first.core.createNamespacedService({
      namespace: 'kept',
      body: { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } },
    });
    first.sim.snapshot(path);
    const rv = first.sim.store.currentRv;
    await first.sim.stop();

    const second = await startSimWithClients({ snapshotPath: path });
    try {
      const restored = await second.core.readNamespacedConfigMap({ namespace: 'kept', name: 'cfg' });
      expect(restored.metadata?.uid).toBe(cm.metadata?.uid);
      expect(restored.metadata?.resourceVersion).toBe(cm.metadata?.resourceVersion);
      expect(restored.data).toEqual({ a: '1' });
      // The counter goes on from where it was; an old watch position cannot be resumed.
      const next = await second.core.createNamespacedConfigMap({
        namespace: 'kept',
        body: { metadata: { name: 'new' } },
      });
      expect(Number(next.metadata?.resourceVersion)).toBeGreaterThan(rv);
      // The restored Service keeps its address, and a new one gets another.
      const other = await second.core.createNamespacedService({
        namespace: 'kept',
        body: { metadata: { name: 'api' }, spec: { ports: [{ port: 80 }] } },
      });
      expect(other.spec?.clusterIP).not.toBe(svc.spec?.clusterIP);
      expect(
        (await second.core.readNamespacedService({ namespace: 'kept', name: 'web' })).spec?.clusterIP,
      ).toBe(svc.spec?.clusterIP);
      // Bootstrap objects are not duplicated.
      expect(
        (await second.core.listNamespace()).items.filter((n) => n.metadata?.name === 'default'),
      ).toHaveLength(1);
    } finally {
      await second.sim.stop();
    }
  });
});
