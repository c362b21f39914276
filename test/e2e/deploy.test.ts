/**
 * The deploy pipeline end to end: CLI → Redis → worker process → kube-sim over HTTP. One fleet
 * (one simulator, one worker process) for the file and one app per test, so the suite stays quick.
 */
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingressName } from '../../charts/index.ts';
import { Sealer } from '../../src/jobs/sealing.ts';
import { createReleaseEngine } from '../../src/releases/index.ts';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { everyValueInRedis } from '../helpers/redis-values.ts';
import { until } from '../helpers/wait.ts';

let fleet: DeployFleet;
let store: SecretReleaseStore;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
  store = await fleet.store();
});

afterAll(async () => {
  await fleet?.stop();
});

const PROCFILE = 'web: bundle exec puma -p 5000\nworker: bundle exec sidekiq -q "default critical"\n';

function appJson(
  cron: { command: string; schedule: string }[] = [{ command: 'bin/rake cleanup', schedule: '@daily' }],
) {
  return JSON.stringify({
    formation: { web: { quantity: 2 }, worker: { quantity: 1 } },
    healthchecks: { web: [{ type: 'startup', path: '/healthz', attempts: 3 }] },
    cron,
  });
}

function deployArgs(app: string, image: string, json = appJson()): string[] {
  return [
    'deploy',
    app,
    '--image',
    image,
    '--procfile',
    fleet.file(`${app}.Procfile`, PROCFILE),
    '--app-json',
    fleet.file(`${app}.app.json`, json),
    '--wait',
  ];
}

const ok = (args: string[]) => fleet.ok(args);

const writesDuring = (fn: () => Promise<unknown>) => fleet.writesDuring(fn);

async function deployment(name: string, namespace = 'default'): Promise<k8s.V1Deployment> {
  return fleet.apps.readNamespacedDeployment({ name, namespace });
}

async function replicaSetsOf(app: string, namespace = 'default'): Promise<k8s.V1ReplicaSet[]> {
  return (
    await fleet.apps.listNamespacedReplicaSet({
      namespace,
      labelSelector: `app.kubernetes.io/part-of=${app}`,
    })
  ).items;
}

describe('deploy', () => {
  it('deploys a two-process app with a domain, TLS and a cron task, and shows the steps', async () => {
    // Accepted before the first deploy: only the app record (in the system namespace) is written.
    const early = await writesDuring(async () => {
      await ok(['properties:set', 'shop', 'tls-issuer', 'letsencrypt', '--wait']);
      await ok(['domains:add', 'shop', 'shop.example.com', '--wait']);
    });
    // (The first app of the fleet also creates the system namespace itself.)
    expect(early.filter((w) => w !== 'create /namespaces /' && !w.includes(' longshore-system/'))).toEqual(
      [],
    );
    expect(early).toContain('patch /secrets longshore-system/longshore.app.shop');
    const out = await ok(deployArgs('shop', 'registry.example.com/shop:1'));
    expect(out).toMatch(/config-shop: revision 1 deployed/);
    expect(out).toMatch(/shop: waiting for 2 object\(s\), up to 300 s/);
    expect(out).toMatch(/shop: revision 1 deployed/);
    expect(out).toMatch(/completed: deployed registry\.example\.com\/shop:1 \(shop revision 1\)/);

    const web = await deployment('shop-web');
    expect(web.spec?.replicas).toBe(2);
    expect(web.status?.updatedReplicas).toBe(2);
    expect(web.status?.availableReplicas).toBe(2);
    const container = web.spec?.template.spec?.containers[0];
    expect(container?.image).toBe('registry.example.com/shop:1');
    expect(container?.args).toEqual(['bundle', 'exec', 'puma', '-p', '5000']);
    expect(container?.envFrom).toEqual([{ secretRef: { name: 'config-shop', optional: true } }]);
    expect(container?.startupProbe?.httpGet?.path).toBe('/healthz');
    expect(web.spec?.template.metadata?.annotations?.['longshore.dev/config-digest']).toMatch(
      /^[0-9a-f]{64}$/,
    );
    expect(web.spec?.template.spec?.serviceAccountName).toBe('shop');
    const worker = await deployment('shop-worker');
    expect(worker.spec?.template.spec?.containers[0]?.args).toEqual([
      'bundle',
      'exec',
      'sidekiq',
      '-q',
      'default critical',
    ]);

    const service = await fleet.core.readNamespacedService({ name: 'shop-web', namespace: 'default' });
    expect(service.spec?.ports?.map((p) => [p.name, p.port, p.targetPort])).toEqual([
      ['http-80-5000', 80, 5000],
      ['https-443-5000', 443, 5000],
    ]);
    const ingress = await fleet.networking.readNamespacedIngress({
      name: ingressName('shop', 'shop.example.com'),
      namespace: 'default',
    });
    expect(ingress.metadata?.annotations?.['cert-manager.io/cluster-issuer']).toBe('letsencrypt');
    expect(ingress.spec?.tls).toEqual([
      { hosts: ['shop.example.com'], secretName: `${ingressName('shop', 'shop.example.com')}-tls` },
    ]);
    expect(ingress.spec?.rules?.[0]?.http?.paths[0]?.backend.service).toEqual({
      name: 'shop-web',
      port: { number: 443 },
    });
    const cronJobs = (
      await fleet.batch.listNamespacedCronJob({
        namespace: 'default',
        labelSelector: 'app.kubernetes.io/part-of=shop',
      })
    ).items;
    expect(cronJobs.map((c) => c.metadata?.name)).toEqual([expect.stringMatching(/^shop-cron-[a-z2-7]{8}$/)]);
    expect(cronJobs[0]?.spec?.schedule).toBe('@daily');
    expect(cronJobs[0]?.spec?.timeZone).toBe('Etc/UTC');
    await fleet.core.readNamespacedServiceAccount({ name: 'shop', namespace: 'default' });
    await fleet.core.readNamespacedSecret({ name: 'config-shop', namespace: 'default' });

    await until(() => store.deployed('shop'), 'the revision to reach the test store');
    expect(store.deployed('shop')?.revision).toBe(1);
    expect(store.history('shop').map((r) => r.status)).toEqual(['deployed']);
    const status = JSON.parse(await ok(['apps:status', 'shop', '--json'])) as {
      revision?: number;
      image?: string;
    };
    expect(status).toMatchObject({ revision: 1, image: 'registry.example.com/shop:1' });
  });

  it('redeploys the same thing with zero write requests', async () => {
    const start = fleet.sim.requests.entries().length;
    const writes = await writesDuring(async () => {
      const out = await ok(deployArgs('shop', 'registry.example.com/shop:1'));
      expect(out).toMatch(/shop: unchanged \(revision 1\)/);
    });
    expect(writes).toEqual([]);
    // Reads: informer lists and watches only. The ownership check (src/workers/deploy/ownership.ts)
    // reads the objects it already applied from those caches, and the namespace this worker read at
    // the first deploy is not read again (src/workers/deploy/known-namespaces.ts).
    const reads = fleet.sim.requests
      .entries()
      .slice(start)
      .filter((r) => r.verb !== 'list' && r.verb !== 'watch')
      .map((r) => `${r.verb} ${r.resource} ${r.namespace ?? ''}/${r.name ?? ''}`);
    expect(reads).toEqual([]);
    expect(store.history('shop')).toHaveLength(1);
  });

  it('reconcile repairs a deleted object, writes nothing when nothing drifted, and never creates an app', async () => {
    await fleet.core.deleteNamespacedService({ name: 'shop-web', namespace: 'default' });
    const repaired = await ok(['jobs:enqueue', 'reconcile', '--payload', '{"app":"shop"}', '--wait']);
    expect(repaired).toMatch(/shop: drift repaired \(revision 1\)/);
    await fleet.core.readNamespacedService({ name: 'shop-web', namespace: 'default' });
    expect(store.history('shop')).toHaveLength(1);

    const writes = await writesDuring(async () => {
      expect(await ok(['jobs:enqueue', 'reconcile', '--payload', '{"app":"shop"}', '--wait'])).toMatch(
        /shop: unchanged \(revision 1\)/,
      );
      expect(await ok(['jobs:enqueue', 'reconcile', '--payload', '{"app":"ghost"}', '--wait'])).toMatch(
        /nothing to do: app ghost has no saved spec/,
      );
    });
    expect(writes).toEqual([]);
  });

  it('config:set rolls the pods, and a rollback to the previous revision leaves every ReplicaSet able to start', async () => {
    const before = await replicaSetsOf('shop');
    const digestBefore = (await deployment('shop-web')).spec?.template.metadata?.annotations?.[
      'longshore.dev/config-digest'
    ];
    const out = await ok(['config:set', 'shop', 'DATABASE_URL=postgres://db/shop', 'FEATURE=on', '--wait']);
    expect(out).toMatch(/config-shop: revision 2 deployed/);
    expect(out).toMatch(/shop: revision 2 deployed/);
    const web = await deployment('shop-web');
    expect(web.spec?.template.metadata?.annotations?.['longshore.dev/config-digest']).not.toBe(digestBefore);
    expect((await replicaSetsOf('shop')).length).toBeGreaterThan(before.length);
    const secret = await fleet.core.readNamespacedSecret({ name: 'config-shop', namespace: 'default' });
    expect(Buffer.from(secret.data?.DATABASE_URL ?? '', 'base64').toString()).toBe('postgres://db/shop');

    // An operator rolls the app release back (the engine, as a second client of the same storage).
    // The workers' digest key: the same LONGSHORE_SECRET.
    const secretDigestKey = new Sealer(fleet.env.LONGSHORE_SECRET!).valueDigestKey();
    const engine = createReleaseEngine({ kube: fleet.kc, history: store, secretDigestKey });
    try {
      await until(
        () => (store.deployed('shop')?.revision === 2 ? true : undefined),
        'revision 2 in the test store',
      );
      const rolled = await engine.rollback({
        release: 'shop',
        revision: 1,
        holder: 'operator-rollback',
        wait: { timeoutMs: 60_000 },
      });
      expect(rolled.outcome).toBe('deployed');
    } finally {
      await engine.stop();
    }
    await fleet.sim.settle();
    // Every ReplicaSet's pod template references Secrets that exist: config-{app} has a stable name.
    for (const rs of await replicaSetsOf('shop')) {
      for (const from of rs.spec?.template?.spec?.containers.flatMap((c) => c.envFrom ?? []) ?? []) {
        const name = from.secretRef?.name;
        if (name) await fleet.core.readNamespacedSecret({ name, namespace: 'default' });
      }
    }
    const pods = (
      await fleet.core.listNamespacedPod({
        namespace: 'default',
        labelSelector: 'app.kubernetes.io/part-of=shop',
      })
    ).items;
    expect(pods.length).toBeGreaterThan(0);
    for (const pod of pods) expect(pod.status?.phase, pod.metadata?.name).toBe('Running');
  });

  it('prunes leaked imagePullSecrets to exactly the intended list', async () => {
    await fleet.core.createNamespacedSecret({
      namespace: 'default',
      body: {
        metadata: { name: 'registry-creds' },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') },
      },
    });
    await ok(['properties:set', 'leaky', 'image-pull-secrets', 'registry-creds', '--wait']);
    await ok(deployArgs('leaky', 'registry.example.com/leaky:1'));
    expect((await deployment('leaky-web')).spec?.template.spec?.imagePullSecrets).toEqual([
      { name: 'registry-creds' },
    ]);

    // Another field manager leaks entries into the list, a duplicate included.
    await fleet.apps.patchNamespacedDeployment(
      {
        name: 'leaky-web',
        namespace: 'default',
        fieldManager: 'old-dokku',
        body: [
          {
            op: 'add',
            path: '/spec/template/spec/imagePullSecrets/-',
            value: { name: 'ims-leaky.1700000000' },
          },
          { op: 'add', path: '/spec/template/spec/imagePullSecrets/-', value: { name: 'registry-creds' } },
        ],
      },
      { headers: { 'Content-Type': 'application/json-patch+json' } } as never,
    );
    const leaked = (await deployment('leaky-web')).spec?.template.spec?.imagePullSecrets?.map((s) => s.name);
    expect(leaked).toEqual(['registry-creds', 'ims-leaky.1700000000', 'registry-creds']);

    // The same content: the leak is drift, repaired by one apply that no longer lets it survive.
    const out = await ok(deployArgs('leaky', 'registry.example.com/leaky:1'));
    expect(out).toMatch(
      /leaky: apps\/v1 Deployment default\/leaky-web: removing leaked spec\.template\.spec\.imagePullSecrets \(not applied by longshore: ims-leaky\.1700000000; listed twice: registry-creds\)/,
    );
    expect(out).toMatch(/leaky: drift repaired \(revision 1\)/);
    expect((await deployment('leaky-web')).spec?.template.spec?.imagePullSecrets).toEqual([
      { name: 'registry-creds' },
    ]);
    expect((await deployment('leaky-worker')).spec?.template.spec?.imagePullSecrets).toEqual([
      { name: 'registry-creds' },
    ]);
  });

  it('keeps cron suffixes stable when other tasks come and go; names fit for the longest app name', async () => {
    const app = 'longest-app-name-for-cron-jobs';
    expect(app).toHaveLength(30);
    // Schedules that do not fire while the test runs (kube-sim runs CronJobs on their schedule).
    const a = { command: 'bin/rake a', schedule: '30 2 1 1 *' };
    const b = { command: 'bin/rake b', schedule: '0 3 1 7 *' };
    const c = { command: 'bin/rake c', schedule: '@yearly' };
    const names = async () =>
      Object.fromEntries(
        (
          await fleet.batch.listNamespacedCronJob({
            namespace: 'default',
            labelSelector: `app.kubernetes.io/part-of=${app}`,
          })
        ).items.map((cj) => [
          cj.metadata?.annotations?.['longshore.dev/cron-command'] ?? '',
          cj.metadata?.name ?? '',
        ]),
      );
    await ok(deployArgs(app, 'registry.example.com/cron:1', appJson([a, b])));
    const first = await names();
    expect(Object.keys(first).sort()).toEqual(['bin/rake a', 'bin/rake b']);
    await ok(deployArgs(app, 'registry.example.com/cron:1', appJson([c, b])));
    const second = await names();
    expect(Object.keys(second).sort()).toEqual(['bin/rake b', 'bin/rake c']);
    expect(second['bin/rake b']).toBe(first['bin/rake b']);
    await ok(deployArgs(app, 'registry.example.com/cron:2', appJson([a, c])));
    const third = await names();
    expect(third['bin/rake c']).toBe(second['bin/rake c']);
    expect(third['bin/rake a']).toBe(first['bin/rake a']);
    for (const name of Object.values(third)) expect(name.length).toBeLessThanOrEqual(52);
  });

  it('fails a rollout that cannot pull its image, keeps the old spec, and rolls back when asked', async () => {
    await ok(['properties:set', 'broken', 'deploy-timeout', '3', '--wait']);
    await ok(deployArgs('broken', 'registry.example.com/broken:1'));
    fleet.sim.settings.unpullableImages.push(
      'registry.example.com/broken:2',
      'registry.example.com/broken:3',
    );

    const failed = await fleet.cli(deployArgs('broken', 'registry.example.com/broken:2'));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/failed: .*broken/);
    expect(failed.stderr).toMatch(/ErrImagePull|ImagePullBackOff/);
    await until(
      () => (store.last('broken')?.status === 'failed' ? true : undefined),
      'revision 2 marked failed',
    );
    expect(store.last('broken')?.revision).toBe(2);

    // The next job builds on the last good spec: config:set deploys image 1 again, not the broken one.
    const out = await ok(['config:set', 'broken', 'A=1', '--wait']);
    expect(out).toMatch(/broken: revision 3 deployed/);
    expect((await deployment('broken-web')).spec?.template.spec?.containers[0]?.image).toBe(
      'registry.example.com/broken:1',
    );

    await ok(['properties:set', 'broken', 'rollback-on-failure', 'true', '--wait']);
    const rolledBack = await fleet.cli(deployArgs('broken', 'registry.example.com/broken:3'));
    expect(rolledBack.code).toBe(1);
    expect(rolledBack.stdout + rolledBack.stderr).toMatch(/roll/i);
    await until(
      () =>
        store.last('broken')?.status === 'deployed' && store.last('broken')!.revision >= 5 ? true : undefined,
      'the rollback revision',
    );
    expect(store.history('broken').map((r) => r.status)).toEqual([
      'superseded',
      'failed',
      'superseded',
      'failed',
      'deployed',
    ]);
    await fleet.sim.settle();
    const web = await deployment('broken-web');
    expect(web.spec?.template.spec?.containers[0]?.image).toBe('registry.example.com/broken:1');
  });
});

describe('ports and properties', () => {
  it('changes port maps, and moves every release of the app when its namespace changes', async () => {
    await ok(deployArgs('mover', 'registry.example.com/mover:1'));
    const ports = await ok(['ports:set', 'mover', 'http:8080:5000', 'tcp:9000:9000', '--wait']);
    expect(ports).toMatch(/mover: revision 2 deployed/);
    const service = await fleet.core.readNamespacedService({ name: 'mover-web', namespace: 'default' });
    expect(
      service.spec?.ports?.map((p) => `${p.name} ${p.port}->${p.targetPort} ${p.protocol}`).sort(),
    ).toEqual(['http-8080-5000 8080->5000 TCP', 'tcp-9000-9000 9000->9000 TCP']);

    const moved = await ok(['properties:set', 'mover', 'namespace', 'mover-ns', '--wait']);
    expect(moved).toMatch(/namespace mover-ns: created/);
    const ns = await fleet.core.readNamespace({ name: 'mover-ns' });
    expect(ns.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('longshore');
    for (const name of ['mover-web', 'mover-worker'])
      expect((await deployment(name, 'mover-ns')).status?.availableReplicas).toBeGreaterThan(0);
    await fleet.core.readNamespacedSecret({ name: 'config-mover', namespace: 'mover-ns' });
    await fleet.core.readNamespacedService({ name: 'mover-web', namespace: 'mover-ns' });
    // Nothing of the app is left behind in the old namespace.
    await until(
      async () =>
        (
          await fleet.apps.listNamespacedDeployment({
            namespace: 'default',
            labelSelector: 'app.kubernetes.io/part-of=mover',
          })
        ).items.length === 0 || undefined,
      'the old Deployments to be deleted',
    );
    const leftovers = await fleet.core.listNamespacedSecret({
      namespace: 'default',
      fieldSelector: 'metadata.name=config-mover',
    });
    expect(leftovers.items).toEqual([]);
  });
});

describe('invalid input is refused before any write', () => {
  it('refuses a bad cron expression and a bad domain at the producer', async () => {
    const writes = await writesDuring(async () => {
      const cron = await fleet.cli(
        deployArgs(
          'shop',
          'registry.example.com/shop:2',
          appJson([{ command: 'x', schedule: '61 * * * *' }]),
        ),
      );
      expect(cron.code).toBe(2);
      expect(cron.stderr).toMatch(/cron\[0\]\.schedule: .*61/);
      const domain = await fleet.cli(['domains:add', 'shop', 'bad_domain!.example.com', '--wait']);
      expect(domain.code).toBe(2);
      expect(domain.stderr).toMatch(/domains\.0: must be a hostname/);
    });
    expect(writes).toEqual([]);
  });

  it('refuses scaling an unknown process type, naming the ones the app has', async () => {
    const writes = await writesDuring(async () => {
      const result = await fleet.cli(['ps:scale', 'shop', 'bogus=2', '--wait']);
      // The CLI knows shop's types (recorded by its last job): refused before enqueueing.
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/unknown process type "bogus" \(app shop has: web, worker\)/);
    });
    expect(writes).toEqual([]);
  });

  it('refuses port maps that the chart cannot render, naming the conflict', async () => {
    const writes = await writesDuring(async () => {
      // Deployed or not (porty has no image yet), a spec that could never render is refused.
      for (const app of ['shop', 'porty']) {
        const result = await fleet.cli(['ports:set', app, 'http:80:5000', 'https:80:5001', '--wait']);
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(new RegExp(`invalid app ${app}: ports`));
      }
    });
    expect(writes).toEqual([]);
  });

  it('refuses an environment over 1 MiB in total, keeping the previous config', async () => {
    const value = 'x'.repeat(100_000);
    const assignments = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${prefix}${i}=${value}`);
    await ok(['config:set', 'bulky', ...assignments('A', 6), '--wait']);
    const writes = await writesDuring(async () => {
      const result = await fleet.cli(['config:set', 'bulky', ...assignments('B', 5), '--wait']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/env is 1,100,\d{3} bytes .*at most 1,048,576/);
    });
    expect(writes).toEqual([]);
    const secret = await fleet.core.readNamespacedSecret({ name: 'config-bulky', namespace: 'default' });
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(['A0', 'A1', 'A2', 'A3', 'A4', 'A5']);
  });
});

describe('registry credentials', () => {
  it('installs pull-secret-{app} before the app release, and uninstalls it when the credentials are cleared', async () => {
    const out = await fleet.cli(
      [
        ...deployArgs('private', 'registry.example.com/private:1'),
        '--registry-server',
        'registry.example.com',
        '--registry-username',
        'deployer',
        '--registry-password-stdin',
      ],
      { stdin: 's3cret-token\n' },
    );
    expect(out.stderr).toBe('');
    expect(out.stdout).toMatch(/pull-secret-private: revision 1 deployed[\s\S]*private: revision 1 deployed/);
    const secret = await fleet.core.readNamespacedSecret({
      name: 'pull-secret-private',
      namespace: 'default',
    });
    expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
    const auths = JSON.parse(Buffer.from(secret.data?.['.dockerconfigjson'] ?? '', 'base64').toString()) as {
      auths: Record<string, { username: string; password: string }>;
    };
    expect(auths.auths['registry.example.com']).toMatchObject({
      username: 'deployer',
      password: 's3cret-token',
    });
    expect((await deployment('private-web')).spec?.template.spec?.imagePullSecrets).toEqual([
      { name: 'pull-secret-private' },
    ]);
    // Never in Redis in clear text, nor in the worker's logs.
    const client = fleet.redis.connect();
    try {
      expect((await everyValueInRedis(client)).filter((v) => v.includes('s3cret-token'))).toEqual([]);
    } finally {
      client.disconnect();
    }
    expect(fleet.workers[0]?.output()).not.toContain('s3cret-token');

    // A deploy that does not mention credentials keeps them.
    await ok(deployArgs('private', 'registry.example.com/private:2'));
    await fleet.core.readNamespacedSecret({ name: 'pull-secret-private', namespace: 'default' });

    const cleared = await ok([
      ...deployArgs('private', 'registry.example.com/private:2'),
      '--clear-registry',
    ]);
    expect(cleared).toMatch(/pull-secret-private: uninstalled/);
    await until(
      async () =>
        await fleet.core
          .readNamespacedSecret({ name: 'pull-secret-private', namespace: 'default' })
          .then(() => undefined)
          .catch(() => true),
      'pull-secret-private to be deleted',
    );
    expect((await deployment('private-web')).spec?.template.spec?.imagePullSecrets).toBeUndefined();
  });
});
