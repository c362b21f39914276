/**
 * apps:rename end to end: CLI → Redis → worker process → kube-sim over HTTP. A deployed app with a
 * domain, a cron task, config, registry credentials, a storage mount and a leftover `tls-{old}`
 * release becomes the same app under the new name, with nothing of the old name left; renaming
 * onto an existing app (or from a missing one) fails before any write; a job for the old name
 * afterwards fails naming the new one; a worker killed mid-rename leaves a job the next worker
 * finishes with the same end state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appLabels } from '../../charts/labels.ts';
import type { KubeObject } from '../../infra/kube-sim/types.ts';
import { Sealer } from '../../src/jobs/sealing.ts';
import { createReleaseEngine } from '../../src/releases/index.ts';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import type { ReleaseObject } from '../../src/storage/types.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { until } from '../helpers/wait.ts';

let fleet: DeployFleet;
let store: SecretReleaseStore;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
  store = await fleet.store();
  await fleet.ok(['storage:create', 'files', '--size', '1Gi', '--host-path', '/srv/files', '--wait']);
});

afterAll(async () => {
  await fleet?.stop();
});

const PROCFILE = 'web: bundle exec puma -p 5000\n';
const APP_JSON = JSON.stringify({ cron: [{ command: 'bin/rake cleanup', schedule: '@daily' }] });

async function deploy(app: string): Promise<void> {
  await fleet.ok(['domains:add', app, `${app}.example.com`, '--wait']);
  await fleet.ok(['config:set', app, 'GREETING=hi', '--wait']);
  await fleet.ok(['storage:mount', app, 'files:/files', '--wait']);
  await fleet.deployWithRegistry(app, `registry.example.com/${app}:1`, PROCFILE, APP_JSON);
}

/** A `tls-{app}` release as an older longshore left it: one Secret of the app's, in history. */
async function plantTls(app: string): Promise<void> {
  const secretDigestKey = new Sealer(fleet.env.LONGSHORE_SECRET!).valueDigestKey();
  const engine = createReleaseEngine({ kube: fleet.kc, history: store, secretDigestKey });
  try {
    await engine.upgrade({
      app,
      release: `tls-${app}`,
      chart: { name: 'tls', version: '0.9.0' },
      values: {},
      objects: [
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: `tls-${app}`, namespace: 'default', labels: appLabels(app) },
          data: { 'tls.crt': Buffer.from('old').toString('base64') },
        } as ReleaseObject,
      ],
      holder: 'older-longshore',
      wait: false,
    });
  } finally {
    await engine.stop();
  }
  await until(() => (store.releases(app).includes(`tls-${app}`) ? true : undefined), `tls-${app} in history`);
}

/** Every object in the simulator that belongs to the app: its workloads, pods, Secrets, history. */
function objectsOf(app: string): string[] {
  const found: string[] = [];
  for (const type of fleet.sim.store.typeKeys()) {
    for (const o of fleet.sim.store.list(type) as KubeObject[]) {
      const labels = o.metadata.labels ?? {};
      if (labels['app.kubernetes.io/part-of'] === app || labels['longshore.dev/app'] === app)
        found.push(`${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    }
  }
  return found.sort();
}

/** The names of the app's objects, its own name replaced: what a rename must reproduce. */
function shapeOf(app: string): string[] {
  return (
    objectsOf(app)
      .filter((o) => /^(Deployment|CronJob|Ingress|Service|ServiceAccount|Secret) default\//.test(o))
      .filter((o) => !o.startsWith('Secret default/tls-'))
      // The app's name starts each object's name; an Ingress name also holds its domain (carried over
      // as it was) and a hash of the whole.
      .map((o) => o.replace(new RegExp(`default/(config-|pull-secret-)?${app}`), 'default/$1APP'))
      .map((o) => (o.startsWith('Ingress ') ? o.replace(/-[0-9a-f]{8}$/, '-HASH') : o))
      .sort()
  );
}

async function secretData(name: string): Promise<Record<string, string>> {
  return (await fleet.core.readNamespacedSecret({ name, namespace: 'default' })).data ?? {};
}

/** What the app serves: the web container's image and env source, the CronJob, the domain, the mount. */
async function served(app: string) {
  const web = await fleet.apps.readNamespacedDeployment({ name: `${app}-web`, namespace: 'default' });
  const container = web.spec?.template.spec?.containers[0];
  const cron = (
    await fleet.batch.listNamespacedCronJob({
      namespace: 'default',
      labelSelector: `app.kubernetes.io/part-of=${app}`,
    })
  ).items;
  const ingresses = (
    await fleet.networking.listNamespacedIngress({
      namespace: 'default',
      labelSelector: `app.kubernetes.io/part-of=${app}`,
    })
  ).items;
  return {
    image: container?.image,
    available: web.status?.availableReplicas,
    cron: cron.map((c) => c.metadata?.name?.replace(app, 'APP')),
    hosts: ingresses.flatMap((i) => (i.spec?.rules ?? []).map((r) => r.host)),
    claims: (web.spec?.template.spec?.volumes ?? []).map((v) => v.persistentVolumeClaim?.claimName),
    pullSecrets: (web.spec?.template.spec?.imagePullSecrets ?? []).map((s) => s.name?.replace(app, 'APP')),
  };
}

interface AppRow {
  name: string;
  revision?: number;
  image?: string;
  renamedTo?: string;
}

async function expectRenamed(from: string, to: string, before: { shape: string[]; pull: string }) {
  await until(() => (objectsOf(from).length === 0 ? true : undefined), `everything of ${from} to be gone`, {
    timeoutMs: 30_000,
  });
  await until(() => (store.releases(from).length === 0 ? true : undefined), `${from} history to go`);
  expect(store.releases(to)).toEqual([`config-${to}`, `pull-secret-${to}`, to]);
  expect(store.apps.get(from)).toBeUndefined();
  expect(store.apps.get(to)?.spec).toMatchObject({
    app: to,
    image: `registry.example.com/${from}:1`,
    domains: [`${from}.example.com`],
    mounts: [{ entry: 'files', mountPath: '/files' }],
  });
  expect(shapeOf(to)).toEqual(before.shape);
  expect(await served(to)).toEqual({
    image: `registry.example.com/${from}:1`,
    available: 1,
    cron: [expect.stringMatching(/^APP-cron-[a-z2-7]{8}$/)],
    hosts: [`${from}.example.com`],
    claims: ['storage-files'],
    pullSecrets: ['pull-secret-APP'],
  });
  expect(await secretData(`config-${to}`)).toEqual({ GREETING: Buffer.from('hi').toString('base64') });
  expect((await secretData(`pull-secret-${to}`))['.dockerconfigjson']).toBe(before.pull);
  // The storage entry is fleet-wide: it stays.
  expect(store.releases('files').length + store.history('storage-files').length).toBeGreaterThan(0);

  const all = JSON.parse(await fleet.ok(['apps:list', '--all', '--json'])) as AppRow[];
  expect(all.find((a) => a.name === to)).toMatchObject({
    revision: 1,
    image: `registry.example.com/${from}:1`,
  });
  expect(all.find((a) => a.name === from)).toMatchObject({ renamedTo: to });
  expect(all.find((a) => a.name === from)?.revision).toBeUndefined();
  expect(await fleet.ok(['apps:list'])).not.toMatch(new RegExp(`^${from}\\s`, 'm'));
}

describe('apps:rename', () => {
  it('moves a deployed app with a domain, cron task, config, mount and a leftover tls release to the new name', async () => {
    await deploy('shop');
    await plantTls('shop');
    expect(store.releases('shop')).toEqual(['config-shop', 'pull-secret-shop', 'shop', 'tls-shop']);
    const before = {
      shape: shapeOf('shop'),
      pull: (await secretData('pull-secret-shop'))['.dockerconfigjson']!,
    };
    const cronBefore = (await served('shop')).cron;

    const out = await fleet.ok(['apps:rename', 'shop', 'store', '--wait']);
    expect(out).toMatch(/-----> Renaming shop to store/);
    expect(out).toMatch(/store: revision 1 deployed/);
    expect(out).toMatch(/uninstalled shop \(\d+ objects?\)/);
    expect(out).toMatch(/uninstalled tls-shop \(1 object\)/);
    expect(out).toMatch(/completed: renamed shop to store/);
    await expectRenamed('shop', 'store', before);
    // The cron task keeps its suffix: only the app part of the CronJob's name changed.
    expect((await served('store')).cron).toEqual(cronBefore);
    // The old name's job history stays readable.
    expect(await fleet.ok(['jobs:show', 'app.shop.4'])).toMatch(/deployed registry\.example\.com\/shop:1/);

    // A job for the old name fails for good, naming the new one; nothing of shop comes back.
    const late = await fleet.cli(['config:set', 'shop', 'GREETING=again', '--wait']);
    expect(late.code).toBe(1);
    expect(late.stdout + late.stderr).toMatch(/app shop was renamed to store/);
    expect(store.releases('shop')).toEqual([]);
    // The new name takes jobs as any app does.
    expect(await fleet.ok(['config:set', 'store', 'GREETING=hello', '--wait'])).toMatch(/store: revision 2/);
  });

  it('refuses to rename onto an existing app, or from a missing one, before any write', async () => {
    await fleet.ok(['deploy', 'taken', '--image', 'registry.example.com/taken:1', '--wait']);
    await fleet.ok(['deploy', 'mover', '--image', 'registry.example.com/mover:1', '--wait']);
    let result: Awaited<ReturnType<DeployFleet['cli']>> | undefined;
    const writes = await fleet.writesDuring(async () => {
      result = await fleet.cli(['apps:rename', 'mover', 'taken', '--wait']);
    });
    expect(result?.code).toBe(1);
    expect(result!.stdout + result!.stderr).toMatch(/app taken already exists/);
    expect(writes).toEqual([]);
    expect(store.releases('mover')).toEqual(['config-mover', 'mover']);
    expect(store.apps.get('mover')).toBeDefined();

    const missing = await fleet.cli(['apps:rename', 'ghost', 'spirit', '--wait']);
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toMatch(/app ghost does not exist/);
    expect(store.releases('spirit')).toEqual([]);
  });
});

describe('ordering around a rename', () => {
  it('runs a deploy for the new name enqueued during the rename after it, on the spec the rename moved', async () => {
    await deploy('early');
    const readyDelay = fleet.sim.settings.podReadyDelayMs;
    fleet.sim.settings.podReadyDelayMs = 3_000;
    const renaming = fleet.cli(['apps:rename', 'early', 'later', '--wait'], { timeoutMs: 120_000 });
    await until(
      () => (store.last('later')?.status === 'pending-install' ? true : undefined),
      'the rename to be installing the new app release',
    );
    const deploying = fleet.cli(['deploy', 'later', '--image', 'registry.example.com/later:2', '--wait'], {
      timeoutMs: 120_000,
    });
    const [renamed, deployed] = await Promise.all([renaming, deploying]);
    fleet.sim.settings.podReadyDelayMs = readyDelay;
    expect(renamed.code).toBe(0);
    expect(deployed.code).toBe(0);
    expect(deployed.stdout).toMatch(/later: revision 2 deployed/);

    const jobs = JSON.parse(await fleet.ok(['jobs:list', '--json'])) as {
      id: string;
      type: string;
      lane?: string;
    }[];
    const show = async (id: string) =>
      JSON.parse(await fleet.ok(['jobs:show', id, '--json'])) as {
        attempts: { startedAt: number; endedAt?: number }[];
      };
    const rename = await show(jobs.find((j) => j.type === 'rename' && j.lane === 'app.early')!.id);
    const deployJob = await show(jobs.find((j) => j.type === 'deploy' && j.lane === 'app.later')!.id);
    const gap = deployJob.attempts[0]!.startedAt - rename.attempts.at(-1)!.endedAt!;
    expect(gap).toBeGreaterThanOrEqual(0);
    // Promoted when the rename ended (job-records.ts, releaseBarrier), not at its park fallback,
    // which by then is seconds long (0.5 s doubling per park).
    expect(gap).toBeLessThan(1_500);
    // The deploy built on the spec the rename moved: the old name's domain and mount came with it.
    expect(store.apps.get('later')?.spec).toMatchObject({
      image: 'registry.example.com/later:2',
      domains: ['early.example.com'],
      mounts: [{ entry: 'files', mountPath: '/files' }],
    });
    expect(store.releases('early')).toEqual([]);
  });
});

describe('a worker killed mid-rename', () => {
  it('leaves a job the next worker finishes: the same end state as an uninterrupted rename', async () => {
    await deploy('crashy');
    await plantTls('crashy');
    const before = {
      shape: shapeOf('crashy'),
      pull: (await secretData('pull-secret-crashy'))['.dockerconfigjson']!,
    };
    // Slow pods, so the new app release is still waiting for its rollout when its worker dies.
    const readyDelay = fleet.sim.settings.podReadyDelayMs;
    fleet.sim.settings.podReadyDelayMs = 4_000;
    const [first] = fleet.workers;
    const waiting = fleet.cli(['apps:rename', 'crashy', 'steady', '--wait'], { timeoutMs: 120_000 });
    await until(
      () => (store.last('steady')?.status === 'pending-install' ? true : undefined),
      'the new app release to be pending',
    );
    first!.kill('SIGKILL');
    await first!.exited;
    fleet.sim.settings.podReadyDelayMs = readyDelay;

    await fleet.startWorker();
    const result = await waiting;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/completed: renamed crashy to steady/);
    await expectRenamed('crashy', 'steady', before);
    // Two attempts: the killed worker's, never ended, and the one that finished the saga.
    const jobs = JSON.parse(await fleet.ok(['jobs:list', '--json'])) as {
      id: string;
      type: string;
      lane?: string;
    }[];
    const rename = jobs.find((j) => j.type === 'rename' && j.lane === 'app.crashy');
    const shown = JSON.parse(await fleet.ok(['jobs:show', rename!.id, '--json'])) as {
      attempts: { pid: number; outcome?: string }[];
    };
    expect(shown.attempts.map((a) => [a.pid, a.outcome])).toEqual([
      [first!.pid, undefined],
      [fleet.workers.at(-1)!.pid, 'completed'],
    ]);
    // One revision of each new release: the retry continued the pending one, doubling nothing.
    for (const release of ['steady', 'config-steady', 'pull-secret-steady'])
      expect(store.history(release).map((r) => r.revision)).toEqual([1]);
  });
});
