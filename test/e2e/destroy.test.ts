/**
 * apps:destroy end to end: CLI → Redis → worker process → kube-sim over HTTP. A deployed app with a
 * domain and a cron task leaves no object and no release Secret once garbage collection ran; a
 * repeat says there is nothing left; a half-gone app is finished off; a later deploy starts at
 * revision 1; a worker killed mid-destroy leaves a job the next worker finishes; without a
 * terminal and without --force nothing is enqueued.
 */
import { spawn } from 'node:child_process';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sealer } from '../../src/jobs/sealing.ts';
import { createReleaseEngine } from '../../src/releases/index.ts';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { CLI } from '../helpers/processes.ts';
import { appObjects } from '../helpers/sim.ts';
import { until, within } from '../helpers/wait.ts';

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

const PROCFILE = 'web: bundle exec puma -p 5000\nworker: bundle exec sidekiq\n';
const APP_JSON = JSON.stringify({
  formation: { web: { quantity: 2 }, worker: { quantity: 1 } },
  cron: [{ command: 'bin/rake cleanup', schedule: '@daily' }],
});

async function deploy(app: string, image: string): Promise<string> {
  await fleet.ok(['domains:add', app, `${app}.example.com`, '--wait']);
  await fleet.ok(['config:set', app, 'GREETING=hi', '--wait']);
  return fleet.deployWithRegistry(app, image, PROCFILE, APP_JSON);
}

const objectsOf = (app: string) => appObjects(fleet.sim, app);

/** The deleted ReplicaSet of a Deployment (`{deployment}-{pod-template-hash}`). */
function replicaSetName(deletions: string[], deployment: string): string {
  const rs = deletions.find((d) => d.startsWith(`ReplicaSet ${deployment}-`));
  expect(rs).toBeDefined();
  return rs!.slice('ReplicaSet '.length);
}

const nothingOf = (app: string) => () => (objectsOf(app).length === 0 ? true : undefined);

describe('apps:destroy', () => {
  it('removes every object and release of a deployed app; a repeat finds nothing left; a new deploy starts at revision 1', async () => {
    await deploy('shop', 'registry.example.com/shop:1');
    const before = objectsOf('shop');
    for (const kind of ['Deployment', 'Pod', 'CronJob', 'Ingress', 'Service', 'ServiceAccount'])
      expect(before.some((o) => o.startsWith(`${kind} default/`))).toBe(true);
    expect(store.releases('shop')).toEqual(['config-shop', 'pull-secret-shop', 'shop']);
    expect(store.apps.get('shop')).toBeDefined();

    // Foreground deletion: a Deployment or CronJob goes only after its pods (recorded in order).
    const deletions: string[] = [];
    const unsubscribe = fleet.sim.store.subscribe((event) => {
      if (event.type === 'DELETED') deletions.push(`${event.object.kind} ${event.object.metadata.name}`);
    });
    const out = await fleet.ok(['apps:destroy', 'shop', '--force', '--wait']);
    unsubscribe();
    const webPods = deletions.filter((d) => d.startsWith('Pod shop-web-'));
    expect(webPods.length).toBe(2);
    for (const pod of webPods)
      expect(deletions.indexOf(pod)).toBeLessThan(deletions.indexOf('Deployment shop-web'));
    expect(deletions.indexOf(`ReplicaSet ${replicaSetName(deletions, 'shop-web')}`)).toBeLessThan(
      deletions.indexOf('Deployment shop-web'),
    );
    expect(out).toMatch(/-----> Destroying shop/);
    expect(out).toMatch(/uninstalled shop \(\d+ objects\)/);
    expect(out).toMatch(/uninstalled config-shop \(1 object\)/);
    expect(out).toMatch(/uninstalled pull-secret-shop \(1 object\)/);
    expect(out).toMatch(/completed: removed: config-shop, pull-secret-shop, shop, the app record/);
    // The job waited for the foreground deletion: no workload, no pod left when it completed.
    expect(objectsOf('shop').filter((o) => /^(Deployment|ReplicaSet|Pod|CronJob) /.test(o))).toEqual([]);
    await until(nothingOf('shop'), 'every object and release Secret of shop to be gone', {
      timeoutMs: 30_000,
    });
    await until(() => (store.releases('shop').length === 0 ? true : undefined), 'shop history to go');
    expect(store.apps.get('shop')).toBeUndefined();

    // Not live any more: apps:list hides it (--all shows it, with its history readable).
    expect(await fleet.ok(['apps:list'])).not.toMatch(/\bshop\b/);
    const all = JSON.parse(await fleet.ok(['apps:list', '--all', '--json'])) as {
      name: string;
      destroyed?: boolean;
      revision?: number;
      image?: string;
    }[];
    expect(all.find((a) => a.name === 'shop')).toMatchObject({ destroyed: true });
    expect(all.find((a) => a.name === 'shop')?.revision).toBeUndefined();
    expect(all.find((a) => a.name === 'shop')?.image).toBeUndefined();
    expect(await fleet.ok(['jobs:show', 'app.shop.3'])).toMatch(/deployed registry\.example\.com\/shop:1/);

    // A reconcile sync enqueued before the destroy is a no-op and leaves it destroyed; sync skips it.
    await fleet.ok(['jobs:enqueue', 'reconcile', '--payload', '{"app":"shop"}', '--wait']);
    expect(await fleet.ok(['apps:list'])).not.toMatch(/\bshop\b/);
    expect(await fleet.ok(['sync', '--wait'])).toMatch(/enqueued a reconcile for 0 app\(s\)/);

    const again = await fleet.ok(['apps:destroy', 'shop', '--force', '--wait']);
    expect(again).toMatch(/completed: nothing left of shop/);

    const redeployed = await fleet.ok(['deploy', 'shop', '--image', 'registry.example.com/shop:2', '--wait']);
    expect(redeployed).toMatch(/shop: revision 1 deployed/);
    expect(store.history('shop').map((r) => r.revision)).toEqual([1]);
    // The new app starts from an empty spec: no domain, no cron task, no config of the old one.
    const web = await fleet.apps.readNamespacedDeployment({ name: 'shop-web', namespace: 'default' });
    expect(web.spec?.template.spec?.containers[0]?.image).toBe('registry.example.com/shop:2');
    expect(web.spec?.replicas).toBe(1);
    expect(objectsOf('shop').filter((o) => /^(CronJob|Ingress) /.test(o))).toEqual([]);
    // Every deploy installs config-{app} (empty here): revision 1 too, without the old GREETING.
    expect(store.releases('shop')).toEqual(['config-shop', 'shop']);
    expect(store.history('config-shop').map((r) => r.revision)).toEqual([1]);
    const config = await fleet.core.readNamespacedSecret({ name: 'config-shop', namespace: 'default' });
    expect(config.data ?? {}).toEqual({});
    expect(store.apps.get('shop')?.spec).toMatchObject({ domains: [], cron: [] });
  });

  it("deletes the app's run Jobs, a detached one still running included (its pods with it)", async () => {
    await deploy('tools', 'registry.example.com/tools:1');
    const { code, stdout } = await fleet.cli(['run', 'tools', '--detach', '--', 'sleep', '300']);
    expect(code).toBe(0);
    const name = stdout.trim();
    await until(
      () => fleet.batch.readNamespacedJob({ name, namespace: 'default' }),
      'the detached Job to be created',
    );
    const out = await fleet.ok(['apps:destroy', 'tools', '--force', '--wait']);
    expect(out).toContain(`deleted run Job default/${name}`);
    expect(out).toMatch(/removed: .*1 run Job/);
    await until(nothingOf('tools'), 'every object of tools, the run Job and its pod included, to be gone');
  });

  it('finishes off a half-gone app and says what was left', async () => {
    await deploy('half', 'registry.example.com/half:1');
    // Someone uninstalled the app release by hand: only the config, pull secret and record remain.
    const engine = engineOf();
    try {
      await engine.uninstall({ release: 'half', holder: 'by-hand' });
    } finally {
      await engine.stop();
    }
    await until(() => (store.releases('half').includes('half') ? undefined : true), 'half to be gone');

    const out = await fleet.ok(['apps:destroy', 'half', '--force', '--wait']);
    expect(out).not.toMatch(/uninstalled half /);
    expect(out).toMatch(/completed: removed: config-half, pull-secret-half, the app record/);
    await until(nothingOf('half'), 'everything of half to be gone', { timeoutMs: 30_000 });
  });

  it('fails for an app that never existed; refuses without --force off a terminal, asks for the name on one', async () => {
    const unknown = await fleet.cli(['apps:destroy', 'ghost', '--force', '--wait']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout + unknown.stderr).toMatch(/app ghost does not exist/);

    await deploy('kept', 'registry.example.com/kept:1');
    const refused = await fleet.cli(['apps:destroy', 'kept']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--force: destroying kept cannot be undone; pass --force to confirm/);
    const jobs = JSON.parse(await fleet.ok(['jobs:list', '--json'])) as JobRow[];
    expect(jobs.filter((j) => j.type === 'destroy' && j.lane === 'app.kept')).toEqual([]);
    expect(store.apps.get('kept')).toBeDefined();

    // On a terminal it asks for the name: a wrong one refuses, the right one destroys.
    const wrong = await onTerminal(['apps:destroy', 'kept'], 'kep\n');
    expect(wrong.code).toBe(2);
    expect(wrong.output).toMatch(/To proceed, type "kept"/);
    expect(wrong.output).toMatch(/confirmation: "kep" is not "kept"; nothing was enqueued/);
    const after = JSON.parse(await fleet.ok(['jobs:list', '--json'])) as JobRow[];
    expect(after.filter((j) => j.type === 'destroy' && j.lane === 'app.kept')).toEqual([]);
    const right = await onTerminal(['apps:destroy', 'kept', '--wait'], 'kept\n');
    expect(right.code).toBe(0);
    expect(right.output).toMatch(/completed: removed: config-kept, kept, pull-secret-kept, the app record/);
  });
});

/** A release engine of the test's own (another client of the same storage, with the workers' digest key). */
function engineOf() {
  const secretDigestKey = new Sealer(fleet.env.LONGSHORE_SECRET!).valueDigestKey();
  return createReleaseEngine({ kube: fleet.kc, history: store, secretDigestKey });
}

describe('apps:destroy --with-storage', () => {
  it('keeps storage entries by default; with the flag enqueues one storage-destroy per mounted entry', async () => {
    const mounts = [
      { entry: 'logs', mountPath: '/logs', readOnly: false },
      { entry: 'data', mountPath: '/data', readOnly: true },
      { entry: 'data', mountPath: '/srv/data', readOnly: false },
    ];
    for (const app of ['keeper', 'mounty']) {
      await fleet.ok(['deploy', app, '--image', `registry.example.com/${app}:1`, '--wait']);
      // The mounts as storage:mount would save them (that job is not this test's subject).
      await store.apps.saveSpec(app, { ...(store.apps.get(app)?.spec as object), mounts });
    }

    const kept = await fleet.ok(['apps:destroy', 'keeper', '--force', '--wait']);
    expect(kept).not.toMatch(/storage-destroy/);
    const out = await fleet.ok(['apps:destroy', 'mounty', '--force', '--with-storage', '--wait']);
    expect(out).toMatch(/enqueued storage-destroy data \(storage\.data\.\d+\)/);
    expect(out).toMatch(/enqueued storage-destroy logs \(storage\.logs\.\d+\)/);

    const jobs = JSON.parse(await fleet.ok(['jobs:list', '--json'])) as JobRow[];
    const destroyJob = jobs.find((j) => j.type === 'destroy' && j.lane === 'app.mounty');
    expect(
      jobs
        .filter((j) => j.type === 'storage-destroy')
        .map((j) => [j.lane, j.enqueuedBy])
        .sort(),
    ).toEqual([
      ['storage.data', `destroy:${destroyJob?.id}`],
      ['storage.logs', `destroy:${destroyJob?.id}`],
    ]);
  });
});

interface JobRow {
  id: string;
  type: string;
  lane?: string;
  enqueuedBy?: string;
}

describe('a worker killed mid-destroy', () => {
  it('leaves a job the next worker finishes: the same end state, nothing left', async () => {
    await deploy('crashy', 'registry.example.com/crashy:1');
    // A pod that cannot go yet (a finalizer of someone else's) holds its Deployment's foreground
    // deletion, so the destroy is still waiting when its worker dies.
    const [pod] = (
      await fleet.core.listNamespacedPod({
        namespace: 'default',
        labelSelector: 'app.kubernetes.io/part-of=crashy',
      })
    ).items;
    await setFinalizers(pod!.metadata!.name!, ['example.com/hold']);

    const [first] = fleet.workers;
    const waiting = fleet.cli(['apps:destroy', 'crashy', '--force', '--wait'], { timeoutMs: 120_000 });
    await until(
      () => (store.last('crashy')?.status === 'uninstalling' ? true : undefined),
      'the app release to be uninstalling',
    );
    await until(async () => {
      const shown = await fleet.cli(['jobs:show', 'app.crashy.4']);
      return /waiting for .*Deployment default\/crashy-\w+ to be deleted/.test(shown.stdout) || undefined;
    }, 'the destroy to wait for the foreground deletion');
    first!.kill('SIGKILL');
    await first!.exited;

    await setFinalizers(pod!.metadata!.name!, null);
    await fleet.startWorker();
    const result = await waiting;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /completed: removed: config-crashy, crashy, pull-secret-crashy, the app record/,
    );
    await until(nothingOf('crashy'), 'everything of crashy to be gone', { timeoutMs: 30_000 });
    const shown = JSON.parse((await fleet.cli(['jobs:show', 'app.crashy.4', '--json'])).stdout) as {
      attempts: { pid: number; outcome?: string }[];
    };
    expect(shown.attempts.map((a) => a.outcome)).toEqual([undefined, 'completed']);
  });
});

/**
 * Runs the CLI on a pseudo-terminal (util-linux `script`), typing `typed`; stdout and stderr come
 * back as one output, as a person would see them.
 */
function onTerminal(args: string[], typed: string): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: { ...process.env, ...fleet.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stdin.end(typed);
  return within(
    new Promise((resolve) => child.on('close', (code) => resolve({ code, output }))),
    90_000,
    `longshore ${args.join(' ')} on a terminal`,
  );
}

/** Sets (or with null clears) a pod's finalizers with a JSON merge patch, as another controller would. */
async function setFinalizers(pod: string, finalizers: string[] | null): Promise<void> {
  await fleet.objects.patch(
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: pod, namespace: 'default', finalizers } } as never,
    undefined,
    undefined,
    'test',
    undefined,
    k8s.PatchStrategy.MergePatch,
  );
}
