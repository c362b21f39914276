/**
 * The `kubernetes.io/pvc-protection` and `kubernetes.io/pv-protection` finalizers through
 * client-node and kubectl 1.33: added when the objects are created, a claim in use by a Pod
 * stays Terminating until the Pod is gone, an unbound volume goes at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { stays, until } from '../../helpers/wait.ts';

describe('kube-sim storage object in-use protection', () => {
  let c: SimClients;
  let cli: KubeCli;
  const namespace = 'protect';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { podReadyDelayMs: 20, pvcBindDelayMs: 10 } });
    cli = await kubeCli(c.sim);
    await c.core.createNamespace({ body: { metadata: { name: namespace } } });
  });
  afterAll(() => c.sim.stop());

  const claimExists = async (name: string) =>
    (await c.core.listNamespacedPersistentVolumeClaim({ namespace })).items.some(
      (x) => x.metadata?.name === name,
    );

  it('keeps a claim a Pod uses Terminating until the Pod is gone', async () => {
    await c.core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    const created = await c.core.readNamespacedPersistentVolumeClaim({ namespace, name: 'data' });
    expect(created.metadata?.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    await c.core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'user' },
        spec: {
          containers: [{ name: 'c', image: 'busybox', args: ['sleep', 'infinity'] }],
          volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
        },
      },
    });
    const deleted = await cli.kubectl(['delete', 'pvc', 'data', '-n', namespace, '--wait=false']);
    expect(deleted.code, deleted.stderr).toBe(0);
    const terminating = await c.core.readNamespacedPersistentVolumeClaim({ namespace, name: 'data' });
    expect(terminating.metadata?.deletionTimestamp).toBeTruthy();
    await stays(() => claimExists('data'), 300, 'the claim in use to stay');
    await c.core.deleteNamespacedPod({ namespace, name: 'user' });
    await until(async () => !(await claimExists('data')), 'the claim released by the Pod to go');
  });

  it('gives a volume the pv-protection finalizer and lets an unbound one go', async () => {
    await c.core.createPersistentVolume({
      body: {
        metadata: { name: 'spare' },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          hostPath: { path: '/tmp/spare' },
          storageClassName: 'none',
        },
      },
    });
    const pv = await c.core.readPersistentVolume({ name: 'spare' });
    expect(pv.metadata?.finalizers).toEqual(['kubernetes.io/pv-protection']);
    await c.core.deletePersistentVolume({ name: 'spare' });
    await until(
      async () => !(await c.core.listPersistentVolume()).items.some((v) => v.metadata?.name === 'spare'),
      'the unbound volume to go',
    );
  });

  it('lets a Bound volume deleted before its in-use claim go once the claim does', async () => {
    // As an uninstall deletes both at once: the volume waits (pv-protection) while Bound, the
    // claim waits (pvc-protection) while a Pod uses it. The claim's end must release the volume.
    await c.core.createPersistentVolume({
      body: {
        metadata: { name: 'held' },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          hostPath: { path: '/tmp/held' },
          storageClassName: 'manual',
          persistentVolumeReclaimPolicy: 'Retain',
        },
      },
    });
    await c.core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: 'held' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'manual',
          volumeName: 'held',
          resources: { requests: { storage: '1Gi' } },
        },
      },
    });
    await until(
      async () => (await c.core.readPersistentVolume({ name: 'held' })).status?.phase === 'Bound',
      'the volume Bound',
    );
    await c.core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'holder' },
        spec: {
          containers: [{ name: 'c', image: 'busybox', args: ['sleep', 'infinity'] }],
          volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'held' } }],
        },
      },
    });
    await c.core.deletePersistentVolume({ name: 'held' });
    await c.core.deleteNamespacedPersistentVolumeClaim({ namespace, name: 'held' });
    await stays(() => claimExists('held'), 300, 'the claim in use to stay');
    await c.core.deleteNamespacedPod({ namespace, name: 'holder' });
    await until(
      async () =>
        !(await claimExists('held')) &&
        !(await c.core.listPersistentVolume()).items.some((v) => v.metadata?.name === 'held'),
      'the claim and then the volume to go',
    );
  });
});
