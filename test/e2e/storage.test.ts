/**
 * Storage end to end: CLI → Redis → worker process → kube-sim. Entries are releases
 * `storage-{entry}` (a PVC, with a hostPath also a pre-bound PV); mounts are a change of the app's
 * spec that every Deployment and CronJob of the app gets.
 */
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { until } from '../helpers/wait.ts';

let fleet: DeployFleet;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
  // A second class, one that allows expansion (the simulator's default `standard` does not).
  await fleet.storage.createStorageClass({
    body: {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast' },
      provisioner: 'kube-sim.io/hostpath',
      allowVolumeExpansion: true,
      volumeBindingMode: 'Immediate',
    },
  });
});

afterAll(async () => {
  await fleet?.stop();
});

const ok = (args: string[]) => fleet.ok(args);

async function claim(entry: string, namespace = 'default'): Promise<k8s.V1PersistentVolumeClaim | undefined> {
  const list = await fleet.core.listNamespacedPersistentVolumeClaim({ namespace });
  return list.items.find((c) => c.metadata?.name === `storage-${entry}`);
}

async function volume(name: string): Promise<k8s.V1PersistentVolume | undefined> {
  return (await fleet.core.listPersistentVolume()).items.find((v) => v.metadata?.name === name);
}

async function podSpecs(app: string): Promise<{ deployment?: k8s.V1PodSpec; cron?: k8s.V1PodSpec }> {
  const selector = { namespace: 'default', labelSelector: `app.kubernetes.io/part-of=${app}` };
  const deployments = (await fleet.apps.listNamespacedDeployment(selector)).items;
  const cronJobs = (await fleet.batch.listNamespacedCronJob(selector)).items;
  expect(deployments).toHaveLength(1);
  expect(cronJobs).toHaveLength(1);
  return {
    deployment: deployments[0]?.spec?.template.spec,
    cron: cronJobs[0]?.spec?.jobTemplate.spec?.template.spec,
  };
}

describe('storage', () => {
  it('refuses a missing storage class, listing the classes there are, and writes nothing', async () => {
    const result = await fleet.cli([
      'storage:create',
      'data',
      '--size',
      '1Gi',
      '--storage-class',
      'slow',
      '--wait',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('storage class "slow" does not exist; available: fast, standard');
    expect(await claim('data')).toBeUndefined();
    expect((await fleet.store()).history('storage-data')).toEqual([]);
  });

  it('binds a hostPath entry through its own PV, mounts it into the Deployment and CronJob, and destroys it only once unmounted', async () => {
    const created = await ok(['storage:create', 'geo', '--size', '1Gi', '--host-path', '/srv/geo', '--wait']);
    expect(created).toMatch(/completed: storage entry geo: default\/storage-geo Bound, 1Gi/);
    const pv = await volume('storage-geo');
    expect(pv?.spec?.hostPath?.path).toBe('/srv/geo');
    expect(pv?.spec?.storageClassName).toBe('');
    expect(pv?.spec?.persistentVolumeReclaimPolicy).toBe('Retain');
    expect(pv?.spec?.claimRef).toMatchObject({ namespace: 'default', name: 'storage-geo' });
    expect(pv?.status?.phase).toBe('Bound');
    const pvc = await claim('geo');
    expect(pvc?.status?.phase).toBe('Bound');
    expect(pvc?.spec?.volumeName).toBe('storage-geo');
    expect(pvc?.spec?.storageClassName).toBe('');
    // The binder's additions (claimRef uid, bind annotations) are not drift: the same create again writes nothing.
    const again = await fleet.writesDuring(() =>
      ok(['storage:create', 'geo', '--size', '1Gi', '--host-path', '/srv/geo', '--wait']),
    );
    expect(again).toEqual([]);
    const status = await ok(['storage:status', 'geo', '--wait']);
    expect(status).toMatch(/^phase +Bound$/m);
    expect(status).toMatch(/^capacity +1Gi$/m);
    expect(status).toMatch(/^claim +default\/storage-geo$/m);
    expect(status).toMatch(/^host path +\/srv\/geo$/m);
    const list = await ok(['storage:list']);
    expect(list).toMatch(/^ENTRY +PHASE +CAPACITY +ACCESS MODE +CLAIM +HOST PATH$/m);
    expect(list).toMatch(/^geo +Bound +1Gi +ReadWriteOnce +default\/storage-geo +\/srv\/geo$/m);
    const json = JSON.parse(await ok(['storage:list', '--json'])) as {
      result: { summary: string; entries: { entry: string; phase: string }[] };
    };
    expect(json.result.summary).toBe('1 storage entry');
    expect(json.result.entries).toEqual([expect.objectContaining({ entry: 'geo', phase: 'Bound' })]);

    const appJson = fleet.file(
      'maps.app.json',
      JSON.stringify({ cron: [{ command: 'bin/refresh', schedule: '@daily' }] }),
    );
    await ok(['deploy', 'maps', '--image', 'registry.example.com/maps:1', '--app-json', appJson, '--wait']);

    // A mount of an entry that does not exist is refused before anything is written.
    const missing = await fleet.cli(['storage:mount', 'maps', 'nothing:/x', '--wait']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/storage entry nothing does not exist/);

    await ok(['storage:mount', 'maps', 'geo:/data:ro', '--sub-path', 'v2', '--wait']);
    // A mount of one process only: its Deployment gets it, the CronJob does not.
    await ok(['storage:mount', 'maps', 'geo:/tiles', '--process', 'web', '--wait']);
    const mounted = await podSpecs('maps');
    const geo = [{ name: 'geo', persistentVolumeClaim: { claimName: 'storage-geo' } }];
    const shared = { name: 'geo', mountPath: '/data', subPath: 'v2', readOnly: true };
    expect(mounted.deployment?.volumes).toEqual(geo);
    expect(mounted.deployment?.containers[0]?.volumeMounts).toEqual([
      shared,
      { name: 'geo', mountPath: '/tiles' },
    ]);
    expect(mounted.cron?.volumes).toEqual(geo);
    expect(mounted.cron?.containers[0]?.volumeMounts).toEqual([shared]);

    const refused = await fleet.cli(['storage:destroy', 'geo', '--wait']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'storage entry geo is mounted by maps (/data:ro, web:/tiles); unmount it first',
    );
    expect((await claim('geo'))?.status?.phase).toBe('Bound');

    await ok(['storage:unmount', 'maps', 'geo:/data', '--wait']);
    const refusedAgain = await fleet.cli(['storage:destroy', 'geo', '--wait']);
    expect(refusedAgain.stderr).toContain(
      'storage entry geo is mounted by maps (web:/tiles); unmount it first',
    );
    await ok(['storage:unmount', 'maps', 'geo:/tiles', '--wait']);
    const unmounted = await podSpecs('maps');
    for (const pod of [unmounted.deployment, unmounted.cron]) {
      expect(pod?.volumes).toBeUndefined();
      expect(pod?.containers[0]?.volumeMounts).toBeUndefined();
    }

    expect(await ok(['storage:destroy', 'geo', '--wait'])).toMatch(/completed: storage entry geo destroyed/);
    let lastSeen = '';
    // The uninstall deletes without waiting (as `helm uninstall` does): the claim goes at once, the
    // volume once the binder has released it and pv-protection has dropped its finalizer; the
    // claim itself waits for the unmounted pods' graceful termination (pvc-protection).
    await until(
      async () => {
        const [c, v] = [await claim('geo'), await volume('storage-geo')];
        if (c === undefined && v === undefined) return true;
        // What is left, for the timeout's message: the claim's and the volume's phase and finalizers, and the app's pods.
        const pods = (await fleet.core.listNamespacedPod({ namespace: 'default' })).items.map(
          (p) =>
            `${p.metadata?.name}:${p.status?.phase}${p.metadata?.deletionTimestamp ? ':terminating' : ''}`,
        );
        lastSeen = JSON.stringify({
          claim: c && {
            phase: c.status?.phase,
            finalizers: c.metadata?.finalizers,
            deleting: Boolean(c.metadata?.deletionTimestamp),
          },
          volume: v && {
            phase: v.status?.phase,
            finalizers: v.metadata?.finalizers,
            deleting: Boolean(v.metadata?.deletionTimestamp),
          },
          pods,
        });
        return undefined;
      },
      'the claim and the volume to be gone',
      { timeoutMs: 60_000 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; left: ${lastSeen}`);
    });
    expect(await claim('geo')).toBeUndefined();
    expect(await volume('storage-geo')).toBeUndefined();
    const store = await fleet.store();
    expect(store.history('storage-geo')).toEqual([]);
    expect(store.apps.get('storage-geo')).toBeUndefined();
    // Repeating it finds nothing left.
    expect(await ok(['storage:destroy', 'geo', '--wait'])).toMatch(
      /completed: storage entry geo: nothing to remove/,
    );
  });

  it('refuses to destroy an entry whose claim a Deployment uses though no saved spec mounts it', async () => {
    await ok(['storage:create', 'held', '--size', '1Gi', '--wait']);
    // As a mount whose rollout failed leaves it (the Deployment has the volume, the spec was never
    // saved), or as an operator's own workload.
    await fleet.apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'holder' },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'holder' } },
          template: {
            metadata: { labels: { app: 'holder' } },
            spec: {
              containers: [{ name: 'c', image: 'nginx:1' }],
              volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'storage-held' } }],
            },
          },
        },
      },
    });
    const refused = await fleet.cli(['storage:destroy', 'held', '--wait']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /storage entry held is still in use by Deployment holder in namespace default/,
    );
    expect(await claim('held')).toBeDefined();

    await fleet.apps.deleteNamespacedDeployment({ namespace: 'default', name: 'holder' });
    await until(
      async () =>
        !(await fleet.apps.listNamespacedDeployment({ namespace: 'default' })).items.some(
          (d) => d.metadata?.name === 'holder',
        ) || undefined,
      'the Deployment to be gone',
    );
    await ok(['storage:destroy', 'held', '--wait']);
    await until(async () => ((await claim('held')) === undefined ? true : undefined), 'the claim to be gone');
  });

  it('grows an entry only where its class allows expansion, and never shrinks one', async () => {
    await ok(['storage:create', 'cache', '--size', '2Gi', '--wait']);
    expect((await claim('cache'))?.spec?.storageClassName).toBe('standard');
    // A provisioned claim (the binder set its volumeName) is not drift either.
    expect(
      await fleet.writesDuring(() => ok(['storage:create', 'cache', '--size', '2Gi', '--wait'])),
    ).toEqual([]);

    const shrink = await fleet.cli(['storage:create', 'cache', '--size', '1Gi', '--wait']);
    expect(shrink.code).toBe(1);
    expect(shrink.stderr).toContain(
      'storage entry cache is 2Gi; shrinking it to 1Gi is refused (volumes only grow)',
    );
    const grow = await fleet.cli(['storage:create', 'cache', '--size', '4Gi', '--wait']);
    expect(grow.code).toBe(1);
    expect(grow.stderr).toContain('storage class "standard" does not allow volume expansion');
    expect((await claim('cache'))?.spec?.resources?.requests?.storage).toBe('2Gi');

    await ok(['storage:create', 'media', '--size', '1Gi', '--storage-class', 'fast', '--wait']);
    await ok(['storage:create', 'media', '--size', '3Gi', '--storage-class', 'fast', '--wait']);
    expect((await claim('media'))?.spec?.resources?.requests?.storage).toBe('3Gi');
  });

  it('a worker killed while the claim binds: the retry continues the same revision, nothing doubled', async () => {
    const store = await fleet.store();
    const before = fleet.sim.settings.pvcBindDelayMs;
    fleet.sim.settings.pvcBindDelayMs = 4_000;
    const waiting = fleet.cli(['storage:create', 'slow', '--size', '1Gi', '--wait'], { timeoutMs: 120_000 });
    await until(
      () => (store.last('storage-slow')?.status === 'pending-install' ? true : undefined),
      'the create to store its pending revision',
    );
    await until(async () => (await claim('slow')) ?? undefined, 'the claim to be applied');
    const [first] = fleet.workers;
    first!.kill('SIGKILL');
    await first!.exited;
    fleet.sim.settings.pvcBindDelayMs = before;

    await fleet.startWorker();
    const result = await waiting;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/completed: storage entry slow: default\/storage-slow Bound, 1Gi/);
    expect(store.history('storage-slow').map((r) => [r.revision, r.status])).toEqual([[1, 'deployed']]);
    const claims = (await fleet.core.listNamespacedPersistentVolumeClaim({ namespace: 'default' })).items;
    expect(claims.filter((c) => c.metadata?.name === 'storage-slow')).toHaveLength(1);
  });
});
