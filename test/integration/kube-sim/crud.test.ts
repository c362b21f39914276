/**
 * CRUD of every resource kube-sim serves, through the real @kubernetes/client-node over HTTP:
 * create, read, list, replace, patch and delete, with the server-assigned metadata a client sees.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

const podTemplate = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: app, image: 'nginx:1.27' }] },
});

describe('kube-sim CRUD through client-node', () => {
  let c: SimClients;
  const ns = 'crud';

  beforeAll(async () => {
    // API machinery only: no workload controller writes in the background.
    c = await startSimWithClients({ controllers: false });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  it('serves namespaces with the finalizer, phase and name label a cluster sets', async () => {
    const got = await c.core.readNamespace({ name: ns });
    expect(got.status?.phase).toBe('Active');
    expect(got.spec?.finalizers).toEqual(['kubernetes']);
    expect(got.metadata?.labels).toEqual({ 'kubernetes.io/metadata.name': ns });
    const names = (await c.core.listNamespace()).items.map((n) => n.metadata?.name);
    expect(names).toEqual(
      expect.arrayContaining(['default', 'kube-system', 'kube-public', 'kube-node-lease', ns]),
    );
  });

  it('creates, reads, replaces, patches and deletes a Secret', async () => {
    const created = await c.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'db' }, stringData: { password: 'pw' } },
    });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(created.metadata?.generation).toBeUndefined();
    expect(created.type).toBe('Opaque');
    expect(created.data).toEqual({ password: Buffer.from('pw').toString('base64') });
    expect((created as { stringData?: unknown }).stringData).toBeUndefined();

    const read = await c.core.readNamespacedSecret({ namespace: ns, name: 'db' });
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);

    const replaced = await c.core.replaceNamespacedSecret({
      namespace: ns,
      name: 'db',
      body: { ...read, data: { password: Buffer.from('new').toString('base64') } },
    });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(
      Number(read.metadata?.resourceVersion),
    );
    expect(replaced.metadata?.uid).toBe(created.metadata?.uid);

    const patched = await c.core.patchNamespacedSecret(
      { namespace: ns, name: 'db', body: { metadata: { labels: { tier: 'db' } } } },
      merge,
    );
    expect(patched.metadata?.labels).toEqual({ tier: 'db' });

    await c.core.deleteNamespacedSecret({ namespace: ns, name: 'db' });
    expect((await statusOf(c.core.readNamespacedSecret({ namespace: ns, name: 'db' }))).code).toBe(404);
  });

  it('creates ConfigMaps, ServiceAccounts, Events and Leases', async () => {
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'cfg' }, data: { a: '1' } },
    });
    await c.core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'app' } } });
    await c.core.createNamespacedEvent({
      namespace: ns,
      body: {
        metadata: { name: 'e1' },
        involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
        reason: 'Started',
        message: 'hi',
        type: 'Normal',
      },
    });
    await c.coordination.createNamespacedLease({
      namespace: ns,
      body: { metadata: { name: 'lock' }, spec: { holderIdentity: 'w1', leaseDurationSeconds: 15 } },
    });
    expect((await c.core.readNamespacedConfigMap({ namespace: ns, name: 'cfg' })).data).toEqual({ a: '1' });
    expect(
      (await c.core.listNamespacedServiceAccount({ namespace: ns })).items.map((s) => s.metadata?.name),
    ).toContain('app');
    expect(
      (await c.core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=p' })).items,
    ).toHaveLength(1);
    expect(
      (await c.coordination.readNamespacedLease({ namespace: ns, name: 'lock' })).spec?.holderIdentity,
    ).toBe('w1');
  });

  it('allocates Service clusterIPs and defaults ports', async () => {
    const svc = await c.core.createNamespacedService({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 5000 }] },
      },
    });
    expect(svc.spec?.clusterIP).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    expect(svc.spec?.clusterIPs).toEqual([svc.spec?.clusterIP]);
    expect(svc.spec?.type).toBe('ClusterIP');
    expect(svc.spec?.ports?.[0]).toMatchObject({ port: 80, protocol: 'TCP', targetPort: 5000 });
    const other = await c.core.createNamespacedService({
      namespace: ns,
      body: { metadata: { name: 'api' }, spec: { ports: [{ port: 8080 }] } },
    });
    expect(other.spec?.clusterIP).not.toBe(svc.spec?.clusterIP);
    // An update that leaves clusterIP out keeps it.
    const updated = await c.core.replaceNamespacedService({
      namespace: ns,
      name: 'web',
      body: {
        metadata: { name: 'web', resourceVersion: svc.metadata?.resourceVersion },
        spec: { selector: { app: 'web2' }, ports: [{ port: 80 }] },
      },
    });
    expect(updated.spec?.clusterIP).toBe(svc.spec?.clusterIP);
  });

  it('serves Deployments with defaults, generation, status and scale', async () => {
    const d = await c.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate('web') },
      },
    });
    expect(d.metadata?.generation).toBe(1);
    expect(d.spec?.replicas).toBe(1);
    expect(d.spec?.revisionHistoryLimit).toBe(10);
    expect(d.spec?.progressDeadlineSeconds).toBe(600);
    expect(d.spec?.strategy?.type).toBe('RollingUpdate');
    expect(d.spec?.template.spec?.restartPolicy).toBe('Always');
    expect(d.spec?.template.spec?.containers[0]?.imagePullPolicy).toBe('IfNotPresent');

    // A label change bumps nothing; a spec change bumps generation; an annotation change too (apps/v1 Deployment).
    const labelled = await c.apps.patchNamespacedDeployment(
      { namespace: ns, name: 'web', body: { metadata: { labels: { a: 'b' } } } },
      merge,
    );
    expect(labelled.metadata?.generation).toBe(1);
    const scaledSpec = await c.apps.patchNamespacedDeployment(
      { namespace: ns, name: 'web', body: { spec: { replicas: 2 } } },
      merge,
    );
    expect(scaledSpec.metadata?.generation).toBe(2);
    const annotated = await c.apps.patchNamespacedDeployment(
      { namespace: ns, name: 'web', body: { metadata: { annotations: { x: 'y' } } } },
      merge,
    );
    expect(annotated.metadata?.generation).toBe(3);

    // Status goes through /status only; the main resource ignores it.
    const withStatus = await c.apps.replaceNamespacedDeploymentStatus({
      namespace: ns,
      name: 'web',
      body: { ...annotated, status: { observedGeneration: 3, replicas: 2 } },
    });
    expect(withStatus.status?.observedGeneration).toBe(3);
    expect(withStatus.metadata?.generation).toBe(3);
    const ignored = await c.apps.patchNamespacedDeployment(
      { namespace: ns, name: 'web', body: { status: { replicas: 99 } } },
      merge,
    );
    expect(ignored.status?.replicas).toBe(2);

    const scale = await c.apps.readNamespacedDeploymentScale({ namespace: ns, name: 'web' });
    expect(scale).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 2 },
      status: { replicas: 2, selector: 'app=web' },
    });
    await c.apps.replaceNamespacedDeploymentScale({
      namespace: ns,
      name: 'web',
      body: { ...scale, spec: { replicas: 5 } },
    });
    expect((await c.apps.readNamespacedDeployment({ namespace: ns, name: 'web' })).spec?.replicas).toBe(5);
  });

  it('serves ReplicaSets, Jobs, CronJobs and Pods', async () => {
    await c.apps.createNamespacedReplicaSet({
      namespace: ns,
      body: {
        metadata: { name: 'rs' },
        spec: { selector: { matchLabels: { app: 'rs' } }, template: podTemplate('rs') },
      },
    });
    const job = await c.batch.createNamespacedJob({
      namespace: ns,
      body: {
        metadata: { name: 'once' },
        spec: {
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
        },
      },
    });
    // The server generates the selector and labels from the Job's uid.
    expect(job.spec?.selector?.matchLabels?.['batch.kubernetes.io/controller-uid']).toBe(job.metadata?.uid);
    expect(job.spec?.template.metadata?.labels?.['job-name']).toBe('once');
    expect(job.spec?.backoffLimit).toBe(6);
    const cron = await c.batch.createNamespacedCronJob({
      namespace: ns,
      body: {
        metadata: { name: 'nightly' },
        spec: {
          schedule: '0 3 * * *',
          jobTemplate: {
            spec: {
              template: {
                spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] },
              },
            },
          },
        },
      },
    });
    expect(cron.spec?.concurrencyPolicy).toBe('Allow');
    expect(cron.spec?.successfulJobsHistoryLimit).toBe(3);
    await c.core.createNamespacedPod({
      namespace: ns,
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox:latest' }] } },
    });
    const pod = await c.core.readNamespacedPod({ namespace: ns, name: 'p' });
    expect(pod.spec?.containers[0]?.imagePullPolicy).toBe('Always');
    expect((await c.apps.listNamespacedReplicaSet({ namespace: ns })).items).toHaveLength(1);
    expect((await c.batch.listNamespacedCronJob({ namespace: ns })).items).toHaveLength(1);
  });

  it('serves PVCs, PVs, StorageClasses and Ingresses', async () => {
    await c.storage.createStorageClass({
      body: { metadata: { name: 'fast' }, provisioner: 'kube-sim/hostpath' },
    });
    expect((await c.storage.readStorageClass({ name: 'fast' })).reclaimPolicy).toBe('Delete');
    await c.core.createPersistentVolume({
      body: {
        metadata: { name: 'pv1' },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          hostPath: { path: '/data/pv1' },
        },
      },
    });
    expect((await c.core.readPersistentVolume({ name: 'pv1' })).spec?.persistentVolumeReclaimPolicy).toBe(
      'Retain',
    );
    const pvc = await c.core.createNamespacedPersistentVolumeClaim({
      namespace: ns,
      body: {
        metadata: { name: 'data' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '1Gi' } },
          storageClassName: 'fast',
        },
      },
    });
    expect(pvc.spec?.volumeMode).toBe('Filesystem');
    const ing = await c.networking.createNamespacedIngress({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: {
          rules: [
            {
              host: 'web.example.com',
              http: {
                paths: [
                  {
                    path: '/',
                    pathType: 'Prefix',
                    backend: { service: { name: 'web', port: { number: 80 } } },
                  },
                ],
              },
            },
          ],
        },
      },
    });
    expect(ing.metadata?.generation).toBe(1);
  });

  it('lists across namespaces, with label and field selectors and pagination', async () => {
    for (let i = 0; i < 7; i++) {
      await c.core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: `page-${i}`, labels: { set: 'paged', n: String(i) } } },
      });
    }
    const first = await c.core.listNamespacedConfigMap({
      namespace: ns,
      labelSelector: 'set=paged',
      limit: 3,
    });
    expect(first.items.map((i) => i.metadata?.name)).toEqual(['page-0', 'page-1', 'page-2']);
    expect(first.metadata?.remainingItemCount).toBe(4);
    const second = await c.core.listNamespacedConfigMap({
      namespace: ns,
      labelSelector: 'set=paged',
      limit: 3,
      _continue: first.metadata!._continue!,
    });
    expect(second.items.map((i) => i.metadata?.name)).toEqual(['page-3', 'page-4', 'page-5']);
    const notIn = await c.core.listNamespacedConfigMap({
      namespace: ns,
      labelSelector: 'set=paged,n notin (0,1,2)',
    });
    expect(notIn.items).toHaveLength(4);
    const byName = await c.core.listConfigMapForAllNamespaces({
      fieldSelector: `metadata.name=page-6,metadata.namespace=${ns}`,
    });
    expect(byName.items.map((i) => i.metadata?.name)).toEqual(['page-6']);
    const withoutKey = await c.core.listNamespacedConfigMap({ namespace: ns, labelSelector: '!set' });
    expect(withoutKey.items.map((i) => i.metadata?.name)).toContain('cfg');
  });

  it('applies dryRun=All without storing anything', async () => {
    const before = c.sim.store.currentRv;
    const dry = await c.core.createNamespacedConfigMap({
      namespace: ns,
      dryRun: 'All',
      body: { metadata: { name: 'dry' }, data: { a: 'b' } },
    });
    expect(dry.metadata?.name).toBe('dry');
    expect((await statusOf(c.core.readNamespacedConfigMap({ namespace: ns, name: 'dry' }))).code).toBe(404);
    expect(c.sim.store.currentRv).toBe(before);
  });
});
