/**
 * Autoscaling end to end: CLI → Redis → worker process → kube-sim over HTTP. Without KEDA's CRD a
 * cpu trigger becomes an `autoscaling/v2` HPA and a redis trigger is refused; with KEDA's published
 * CRD applied (test/fixtures/kube-sim/crds) the autoscaled type gets a ScaledObject. Either way the
 * Deployment's replicas are left to the autoscaler's field manager: a sync after another manager
 * scaled it through `/scale` writes nothing, and `ps:scale` of the type is refused.
 */
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeployFleet, startDeployFleet } from '../../helpers/deploy-fleet.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { everyValueInRedis } from '../../helpers/redis-values.ts';

const CRDS = join(import.meta.dirname, '../../fixtures/kube-sim/crds');
const SCALED_OBJECTS = join(CRDS, 'keda.sh_scaledobjects.yaml');
const TRIGGER_AUTHENTICATIONS = join(CRDS, 'keda.sh_triggerauthentications.yaml');
/** A trigger auth value: it must reach the Secret KEDA reads, and never Redis in clear. */
const REDIS_PASSWORD = 'keda-redis-password-4f1b9c';

let fleet: DeployFleet;
let cli: KubeCli;

beforeAll(async () => {
  fleet = await startDeployFleet();
  cli = await kubeCli(fleet.sim);
  await fleet.startWorker();
});

afterAll(async () => {
  await fleet?.stop();
});

const PROCFILE = 'web: bin/web\nworker: bin/worker\n';

const appJson = (trigger: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    formation: {
      web: { quantity: 1 },
      worker: {
        quantity: 1,
        autoscaling: {
          min_quantity: 1,
          max_quantity: 5,
          cooldown_seconds: 120,
          triggers: [trigger],
          ...extra,
        },
      },
    },
  });

const CPU = { type: 'cpu', metadata: { value: '60' } };
const REDIS = { type: 'redis', metadata: { address: 'redis:6379', listName: 'jobs', listLength: '5' } };

const deployArgs = (app: string, json: string) => [
  'deploy',
  app,
  '--image',
  `registry.example.com/${app}:1`,
  '--procfile',
  fleet.file(`${app}.Procfile`, PROCFILE),
  '--app-json',
  fleet.file(`${app}.app.json`, json),
  '--wait',
];

const deployment = (name: string): Promise<k8s.V1Deployment> =>
  fleet.apps.readNamespacedDeployment({ name, namespace: 'default' });

/** Another field manager (as the HPA controller does) sets the replica count through `/scale`. */
async function scaleAsAutoscaler(name: string, replicas: number): Promise<void> {
  await fleet.apps.patchNamespacedDeploymentScale(
    { name, namespace: 'default', body: { spec: { replicas } }, fieldManager: 'horizontal-pod-autoscaler' },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
}

/**
 * Writes of a sync and the reconciles it enqueues, leaving out the fleet's own bookkeeping
 * (leases, its namespace). `sync --wait` waits for the sync job only, which enqueues a reconcile
 * per app; a reconcile of each app enqueued after it runs after the sync's in the app's lane, so
 * waiting for those waits for the sync's too.
 */
async function syncWrites(apps: string[]): Promise<string[]> {
  const writes = await fleet.writesDuring(async () => {
    await fleet.ok(['sync', '--wait']);
    for (const app of apps)
      await fleet.ok(['jobs:enqueue', 'reconcile', '--payload', JSON.stringify({ app }), '--wait']);
  });
  return writes.filter((w) => !w.includes('longshore-system/') && !w.includes('/leases'));
}

const custom = () => fleet.kc.makeApiClient(k8s.CustomObjectsApi);
async function scaledObjects(): Promise<string[]> {
  const list = (await custom().listNamespacedCustomObject({
    group: 'keda.sh',
    version: 'v1alpha1',
    namespace: 'default',
    plural: 'scaledobjects',
  })) as { items: { metadata: { name: string } }[] };
  return list.items.map((o) => o.metadata.name).sort();
}
async function triggerAuthentication(name: string): Promise<{ spec: Record<string, unknown> } | undefined> {
  try {
    return (await custom().getNamespacedCustomObject({
      group: 'keda.sh',
      version: 'v1alpha1',
      namespace: 'default',
      plural: 'triggerauthentications',
      name,
    })) as { spec: Record<string, unknown> };
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}
async function secretData(name: string): Promise<Record<string, string> | undefined> {
  try {
    const secret = await fleet.core.readNamespacedSecret({ name, namespace: 'default' });
    return Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
    );
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}
async function redisHolds(value: string): Promise<boolean> {
  const client = new Redis(fleet.redis.url, { lazyConnect: true });
  try {
    await client.connect();
    return (await everyValueInRedis(client)).some((v) => v.includes(value));
  } finally {
    client.disconnect();
  }
}
async function hpas(): Promise<string[]> {
  const list = await fleet.kc
    .makeApiClient(k8s.AutoscalingV2Api)
    .listNamespacedHorizontalPodAutoscaler({ namespace: 'default' });
  return list.items.map((o) => o.metadata?.name ?? '').sort();
}

/** Managers of the Deployment's spec.replicas (not status.replicas), from its managedFields. */
async function replicasManagers(name: string): Promise<string[]> {
  const d = await deployment(name);
  return (d.metadata?.managedFields ?? [])
    .filter((f) => {
      const fields = f.fieldsV1 as { 'f:spec'?: Record<string, unknown> } | undefined;
      return fields?.['f:spec']?.['f:replicas'] !== undefined;
    })
    .map((f) => f.manager ?? '')
    .sort();
}

describe('autoscaling', () => {
  it('refuses a bad autoscaling block before anything is enqueued, naming the app.json path', async () => {
    const cases: [string, RegExp][] = [
      [
        appJson(CPU, { min_quantity: 6 }),
        /formation\.worker\.autoscaling\.min_quantity: is 6, above max_quantity 5/,
      ],
      [
        appJson(CPU, { max_quantity: 0 }),
        /formation\.worker\.autoscaling\.max_quantity: must be a whole number from 1/,
      ],
      [
        appJson({ type: 'redis-queue', metadata: {} }),
        /formation\.worker\.autoscaling\.triggers\[0\]\.type: is not a KEDA scaler: the string "redis-queue"/,
      ],
      [
        appJson(CPU, { polling_interval_seconds: 0 }),
        /formation\.worker\.autoscaling\.polling_interval_seconds: must be a whole number from 1 to 86400/,
      ],
    ];
    for (const [json, message] of cases) {
      const result = await fleet.cli(deployArgs('bad', json));
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/enqueued/);
    }
    expect((await fleet.apps.listNamespacedDeployment({ namespace: 'default' })).items).toEqual([]);
  });

  it('without KEDA: a cpu trigger gives an HPA, a redis trigger is refused', async () => {
    const refused = await fleet.cli(deployArgs('queue', appJson(REDIS)));
    // A cluster fact, so the worker refuses (the job fails: exit 1), before any write.
    expect(refused.code, refused.stdout).toBe(1);
    expect(`${refused.stdout}${refused.stderr}`).toMatch(
      /KEDA is not installed on this cluster \(no ScaledObject CRD\)/,
    );
    expect((await fleet.apps.listNamespacedDeployment({ namespace: 'default' })).items).toEqual([]);

    await fleet.ok(deployArgs('shop', appJson(CPU)));
    const hpa = fleet.kc.makeApiClient(k8s.AutoscalingV2Api);
    const got = await hpa.readNamespacedHorizontalPodAutoscaler({
      name: 'shop-worker',
      namespace: 'default',
    });
    expect(got.spec).toMatchObject({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop-worker' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
        },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 120 } },
    });
    // Trigger authentication needs KEDA's TriggerAuthentication: refused by the worker, nothing written.
    const auth = await fleet.cli([
      'autoscaling-auth:set',
      'shop',
      'redis',
      '--metadata',
      'password=x',
      '--wait',
    ]);
    expect(auth.code, auth.stdout).toBe(1);
    expect(`${auth.stdout}${auth.stderr}`).toMatch(
      /KEDA is not installed on this cluster \(no ScaledObject CRD\)/,
    );
    expect(await secretData('keda-auth-shop-redis')).toBeUndefined();
    // web is not autoscaled: no HPA, and its replicas stay longshore's.
    expect(await replicasManagers('shop-web')).toEqual(['longshore']);
    expect(await replicasManagers('shop-worker')).toEqual([]);
  });

  it('with KEDA: a ScaledObject, and a sync after a /scale by another manager writes nothing', async () => {
    for (const crd of [SCALED_OBJECTS, TRIGGER_AUTHENTICATIONS]) {
      const applied = await cli.kubectl(['apply', '-f', crd]);
      expect(applied.stderr).toBe('');
    }
    const waited = await cli.kubectl([
      'wait',
      '--for',
      'condition=established',
      '--timeout=20s',
      'crd/scaledobjects.keda.sh',
      'crd/triggerauthentications.keda.sh',
    ]);
    expect(waited.code, waited.stderr).toBe(0);

    await fleet.ok(deployArgs('jobs', appJson(REDIS, { polling_interval_seconds: 15 })));
    await fleet.ok([
      'autoscaling-auth:set',
      'jobs',
      'redis',
      '--metadata',
      `password=${REDIS_PASSWORD}`,
      '--metadata',
      'username=worker',
      '--wait',
    ]);
    expect(await secretData('keda-auth-jobs-redis')).toEqual({
      password: REDIS_PASSWORD,
      username: 'worker',
    });
    expect((await triggerAuthentication('jobs-redis'))?.spec).toEqual({
      secretTargetRef: [
        { key: 'password', name: 'keda-auth-jobs-redis', parameter: 'password' },
        { key: 'username', name: 'keda-auth-jobs-redis', parameter: 'username' },
      ],
    });
    // Sealed by the CLI, opened only by the worker: the value is nowhere in Redis.
    expect(await redisHolds(REDIS_PASSWORD)).toBe(false);
    const report = await fleet.ok(['autoscaling-auth:report', 'jobs']);
    expect(report).toMatch(/redis\s+password, username/);
    expect(report).not.toContain(REDIS_PASSWORD);
    const scaled = (await custom().getNamespacedCustomObject({
      group: 'keda.sh',
      version: 'v1alpha1',
      namespace: 'default',
      plural: 'scaledobjects',
      name: 'jobs-worker',
    })) as { spec: Record<string, unknown> };
    expect(scaled.spec).toMatchObject({
      scaleTargetRef: { name: 'jobs-worker' },
      minReplicaCount: 1,
      maxReplicaCount: 5,
      pollingInterval: 15,
      cooldownPeriod: 120,
      triggers: [
        {
          type: 'redis',
          metadata: { address: 'redis:6379', listLength: '5', listName: 'jobs' },
          authenticationRef: { name: 'jobs-redis' },
        },
      ],
    });

    // shop's worker was autoscaled by an HPA before KEDA came: its reconcile moves it to a ScaledObject.
    expect(await hpas()).toEqual(['shop-worker']);
    const moved = await syncWrites(['shop', 'jobs']);
    expect(moved).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^patch keda.sh\/scaledobjects default\/shop-worker$/),
        expect.stringMatching(/^delete autoscaling\/horizontalpodautoscalers default\/shop-worker$/),
      ]),
    );
    expect(await scaledObjects()).toEqual(['jobs-worker', 'shop-worker']);
    expect(await hpas()).toEqual([]);

    await scaleAsAutoscaler('jobs-worker', 4);
    await scaleAsAutoscaler('shop-worker', 3);
    expect(await syncWrites(['shop', 'jobs'])).toEqual([]);
    expect((await deployment('jobs-worker')).spec?.replicas).toBe(4);
    expect((await deployment('shop-worker')).spec?.replicas).toBe(3);
    expect(await replicasManagers('jobs-worker')).toEqual(['horizontal-pod-autoscaler']);
    expect(await secretData('keda-auth-jobs-redis')).toEqual({
      password: REDIS_PASSWORD,
      username: 'worker',
    });
    expect(await triggerAuthentication('jobs-redis')).toBeDefined();

    // The control: web's replicas are longshore's, so the same change to it is taken back.
    await scaleAsAutoscaler('jobs-web', 3);
    expect(await syncWrites(['shop', 'jobs'])).toEqual(
      expect.arrayContaining([expect.stringMatching(/deployments default\/jobs-web$/)]),
    );
    expect((await deployment('jobs-web')).spec?.replicas).toBe(1);
  });

  it('hands a running type over to its autoscaler without dropping its replica count', async () => {
    const fixed = JSON.stringify({ formation: { web: { quantity: 1 }, worker: { quantity: 3 } } });
    await fleet.ok(deployArgs('hand', fixed));
    expect(await replicasManagers('hand-worker')).toEqual(['longshore']);
    await fleet.ok(deployArgs('hand', appJson(CPU)));
    // Not back to the default of 1: a second manager kept the count as longshore let go of it.
    expect((await deployment('hand-worker')).spec?.replicas).toBe(3);
    expect(await replicasManagers('hand-worker')).toEqual(['longshore-handover']);
    // The autoscaler's first write through /scale takes it over; later syncs write nothing.
    await scaleAsAutoscaler('hand-worker', 2);
    expect(await replicasManagers('hand-worker')).toEqual(['horizontal-pod-autoscaler']);
    expect(await syncWrites(['shop', 'jobs', 'hand'])).toEqual([]);
    expect((await deployment('hand-worker')).spec?.replicas).toBe(2);

    // A formation entry without autoscaling: the autoscaler goes, the replicas are longshore's again.
    await fleet.ok(deployArgs('hand', fixed));
    expect((await deployment('hand-worker')).spec?.replicas).toBe(3);
    expect(await replicasManagers('hand-worker')).toEqual(['longshore']);
    expect(await scaledObjects()).toEqual(['jobs-worker', 'shop-worker']);
  });

  it('refuses ps:scale of an autoscaled type, naming its autoscaler', async () => {
    const result = await fleet.cli(['ps:scale', 'jobs', 'worker=2', '--wait']);
    // The CLI knows the app's autoscaled types (recorded by its last job): refused before enqueueing.
    expect(result.code).toBe(2);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/enqueued/);
    expect(`${result.stdout}${result.stderr}`).toMatch(/worker is autoscaled by its autoscaler jobs-worker/);
    expect((await deployment('jobs-worker')).spec?.replicas).toBe(4);
    await fleet.ok(['ps:scale', 'jobs', 'web=2', '--wait']);
    expect((await deployment('jobs-web')).spec?.replicas).toBe(2);
  });

  it('refuses bad trigger authentication input before anything is enqueued', async () => {
    const cases: [string[], RegExp][] = [
      [['autoscaling-auth:set', 'jobs', 'redis'], /--metadata: give at least one --metadata KEY=VALUE/],
      [
        ['autoscaling-auth:set', 'jobs', 'redis-queue', '--metadata', 'a=b'],
        /TRIGGER: is not a KEDA scaler: "redis-queue"/,
      ],
      [
        ['autoscaling-auth:set', 'jobs', 'redis', '--metadata', 'pass word=x'],
        /--metadata pass word: must be a KEDA trigger parameter name/,
      ],
      [
        ['autoscaling-auth:set', 'jobs', 'redis', '--metadata', 'novalue'],
        /--metadata: "novalue" is not KEY=VALUE/,
      ],
      [['autoscaling-auth:set', 'nope', 'redis', '--metadata', 'a=b'], /no app nope known to the fleet/],
      [['autoscaling-auth:unset', 'jobs', 'nope'], /TRIGGER: is not a KEDA scaler/],
    ];
    for (const [args, message] of cases) {
      const result = await fleet.cli([...args, '--wait']);
      expect(result.code, `${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/enqueued/);
    }
    expect(await secretData('keda-auth-jobs-redis')).toEqual({
      password: REDIS_PASSWORD,
      username: 'worker',
    });
  });

  it('rename carries the trigger authentication; unset and destroy remove it', async () => {
    await fleet.ok(['apps:rename', 'jobs', 'queue', '--wait']);
    expect(await secretData('keda-auth-queue-redis')).toEqual({
      password: REDIS_PASSWORD,
      username: 'worker',
    });
    expect((await triggerAuthentication('queue-redis'))?.spec).toMatchObject({
      secretTargetRef: [
        { key: 'password', name: 'keda-auth-queue-redis', parameter: 'password' },
        { key: 'username', name: 'keda-auth-queue-redis', parameter: 'username' },
      ],
    });
    // Everything of OLD is gone.
    expect(await secretData('keda-auth-jobs-redis')).toBeUndefined();
    expect(await triggerAuthentication('jobs-redis')).toBeUndefined();
    expect(await redisHolds(REDIS_PASSWORD)).toBe(false);

    await fleet.ok(['autoscaling-auth:unset', 'queue', 'redis', '--wait']);
    expect(await secretData('keda-auth-queue-redis')).toBeUndefined();
    expect(await triggerAuthentication('queue-redis')).toBeUndefined();
    const scaled = (await custom().getNamespacedCustomObject({
      group: 'keda.sh',
      version: 'v1alpha1',
      namespace: 'default',
      plural: 'scaledobjects',
      name: 'queue-worker',
    })) as { spec: { triggers: Record<string, unknown>[] } };
    expect(scaled.spec.triggers[0]).not.toHaveProperty('authenticationRef');

    await fleet.ok(['autoscaling-auth:set', 'queue', 'redis', '--metadata', 'password=again', '--wait']);
    expect(await secretData('keda-auth-queue-redis')).toEqual({ password: 'again' });
    await fleet.ok(['apps:destroy', 'queue', '--force', '--wait']);
    expect(await secretData('keda-auth-queue-redis')).toBeUndefined();
    expect(await triggerAuthentication('queue-redis')).toBeUndefined();
  });
});
