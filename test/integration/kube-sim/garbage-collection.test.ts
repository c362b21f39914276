/**
 * Deletion and garbage collection: background, foreground and orphan propagation, multiple
 * owners, cross-namespace owners, finalizers and deletionTimestamp, preconditions, Jobs orphaning
 * by default, and namespace termination.
 */
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';

describe('kube-sim deletion and garbage collection', () => {
  let c: SimClients;
  const ns = 'gc';

  beforeAll(async () => {
    // API machinery only: no workload controller writes in the background.
    c = await startSimWithClients({ controllers: false });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  const owner = (o: k8s.V1ConfigMap | k8s.V1Secret, kind: string, block = false) => ({
    apiVersion: 'v1',
    kind,
    name: o.metadata!.name!,
    uid: o.metadata!.uid!,
    ...(block ? { blockOwnerDeletion: true } : {}),
  });
  const exists = async (name: string) =>
    (await c.core.listNamespacedConfigMap({ namespace: ns })).items.some((i) => i.metadata?.name === name);

  it('deletes dependents in the background when their only owner goes', async () => {
    const parent = await c.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'parent' } },
    });
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'child', ownerReferences: [owner(parent, 'Secret')] } },
    });
    await c.core.deleteNamespacedSecret({ namespace: ns, name: 'parent' });
    await c.sim.settle();
    expect(await exists('child')).toBe(false);
  });

  it('keeps a dependent while one of several owners lives, dropping the dangling reference', async () => {
    const a = await c.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'owner-a' } } });
    const b = await c.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'owner-b' } } });
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'shared', ownerReferences: [owner(a, 'Secret'), owner(b, 'Secret')] } },
    });
    await c.core.deleteNamespacedSecret({ namespace: ns, name: 'owner-a' });
    await c.sim.settle();
    const shared = await c.core.readNamespacedConfigMap({ namespace: ns, name: 'shared' });
    expect(shared.metadata?.ownerReferences?.map((r) => r.name)).toEqual(['owner-b']);
    await c.core.deleteNamespacedSecret({ namespace: ns, name: 'owner-b' });
    await c.sim.settle();
    expect(await exists('shared')).toBe(false);
  });

  it('treats an owner in another namespace as absent', async () => {
    await c.core.createNamespace({ body: { metadata: { name: 'elsewhere' } } });
    const foreign = await c.core.createNamespacedSecret({
      namespace: 'elsewhere',
      body: { metadata: { name: 'foreign' } },
    });
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'cross', ownerReferences: [owner(foreign, 'Secret')] } },
    });
    await c.sim.settle();
    expect(await exists('cross')).toBe(false);
  });

  it('foreground: the owner waits with a deletionTimestamp until blocking dependents are gone', async () => {
    const parent = await c.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'fg' } } });
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: 'fg-child',
          finalizers: ['example.com/hold'],
          ownerReferences: [owner(parent, 'Secret', true)],
        },
      },
    });
    await c.core.deleteNamespacedSecret({ namespace: ns, name: 'fg', propagationPolicy: 'Foreground' });
    await c.sim.settle();
    const waiting = await c.core.readNamespacedSecret({ namespace: ns, name: 'fg' });
    expect(waiting.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    expect(waiting.metadata?.finalizers).toEqual(['foregroundDeletion']);
    const child = await c.core.readNamespacedConfigMap({ namespace: ns, name: 'fg-child' });
    expect(child.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    // Releasing the child's own finalizer lets it go, and then the owner.
    await c.core.replaceNamespacedConfigMap({
      namespace: ns,
      name: 'fg-child',
      body: { ...child, metadata: { ...child.metadata, finalizers: [] } },
    });
    await c.sim.settle();
    expect((await statusOf(c.core.readNamespacedSecret({ namespace: ns, name: 'fg' }))).code).toBe(404);
  });

  it('orphan: dependents stay and lose the reference', async () => {
    const parent = await c.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'orphaner' } },
    });
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'orphan', ownerReferences: [owner(parent, 'Secret')] } },
    });
    await c.core.deleteNamespacedSecret({ namespace: ns, name: 'orphaner', propagationPolicy: 'Orphan' });
    await c.sim.settle();
    const orphan = await c.core.readNamespacedConfigMap({ namespace: ns, name: 'orphan' });
    expect(orphan.metadata?.ownerReferences).toBeUndefined();
    expect((await statusOf(c.core.readNamespacedSecret({ namespace: ns, name: 'orphaner' }))).code).toBe(404);
  });

  it('Jobs orphan their pods by default, with the upstream warning', async () => {
    await c.batch.createNamespacedJob({
      namespace: ns,
      body: {
        metadata: { name: 'job' },
        spec: {
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
        },
      },
    });
    const res = await fetch(`${c.sim.url}/apis/batch/v1/namespaces/${ns}/jobs/job`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.headers.get('warning')).toContain('child pods are preserved by default when jobs are deleted');
  });

  it('honours preconditions and finalizers', async () => {
    const held = await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } },
    });
    const pre = await statusOf(
      c.core.deleteNamespacedConfigMap({
        namespace: ns,
        name: 'held',
        body: { preconditions: { uid: 'not-the-uid' } },
      }),
    );
    expect(pre).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on configmaps "held": Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${held.metadata?.uid}`,
    });
    await c.core.deleteNamespacedConfigMap({ namespace: ns, name: 'held' });
    const pending = await c.core.readNamespacedConfigMap({ namespace: ns, name: 'held' });
    expect(pending.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    await c.core.patchNamespacedConfigMap(
      { namespace: ns, name: 'held', body: [{ op: 'remove', path: '/metadata/finalizers' }] },
      (await import('@kubernetes/client-node')).setHeaderOptions(
        'Content-Type',
        'application/json-patch+json',
      ),
    );
    expect((await statusOf(c.core.readNamespacedConfigMap({ namespace: ns, name: 'held' }))).code).toBe(404);
  });

  it('terminates a namespace: Terminating, content deleted, then gone', async () => {
    await c.core.createNamespace({ body: { metadata: { name: 'doomed' } } });
    await c.core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'a' } } });
    await c.apps.createNamespacedDeployment({
      namespace: 'doomed',
      body: {
        metadata: { name: 'd' },
        spec: {
          selector: { matchLabels: { a: 'b' } },
          template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      },
    });
    const terminating = (await c.core.deleteNamespace({ name: 'doomed' })) as unknown as k8s.V1Namespace;
    expect(terminating.status?.phase).toBe('Terminating');
    await c.sim.settle();
    expect((await statusOf(c.core.readNamespace({ name: 'doomed' }))).code).toBe(404);
    expect(
      (await c.core.listConfigMapForAllNamespaces({ fieldSelector: 'metadata.namespace=doomed' })).items,
    ).toEqual([]);
  });
});
