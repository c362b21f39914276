/**
 * `releases`, `releases:rollback`, `ps:*` and `resource:*` end to end: CLI → Redis → worker process → kube-sim over HTTP.
 * A rollback restores the revision's objects, its spec (the next job builds on it) and the
 * `config-{app}` revision it ran with, whose values history keeps sealed (docs/releases.md,
 * "Secret values"); when the app's rollback fails, `config-{app}` goes back to what runs.
 */

import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { until } from '../helpers/wait.ts';

let fleet: DeployFleet;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
});

afterAll(async () => {
  await fleet?.stop();
});

const ok = (args: string[]) => fleet.ok(args);

async function imageOf(app: string): Promise<string | undefined> {
  const d = await fleet.apps.readNamespacedDeployment({ name: `${app}-web`, namespace: 'default' });
  return d.spec?.template.spec?.containers[0]?.image;
}

async function envOf(app: string): Promise<Record<string, string>> {
  const secret = await fleet.core.readNamespacedSecret({ name: `config-${app}`, namespace: 'default' });
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}

interface Row {
  revision: number;
  status: string;
  image?: string;
  change: string;
  job?: string;
  by?: string;
  rollbackable: boolean;
}

async function releases(app: string): Promise<Row[]> {
  const out = await ok(['releases', app, '--json']);
  return (JSON.parse(out) as { result: { releases: Row[] } }).result.releases;
}

describe('releases and rollback', () => {
  it('rolls back image, spec and config; the next config:set builds on what runs', async () => {
    await ok(['config:set', 'roll', 'A=1', '--wait']);
    await ok(['deploy', 'roll', '--image', 'nginx:1', '--wait']);
    await ok(['deploy', 'roll', '--image', 'nginx:2', '--wait']);
    await ok(['config:set', 'roll', 'B=2', '--wait']);
    expect(await imageOf('roll')).toBe('nginx:2');
    expect(await envOf('roll')).toEqual({ A: '1', B: '2' });

    await ok(['releases:rollback', 'roll', '1', '--wait']);
    expect(await imageOf('roll')).toBe('nginx:1');
    // config-roll is back at the revision revision 1 ran with: B did not exist then.
    expect(await envOf('roll')).toEqual({ A: '1' });

    const history = await releases('roll');
    expect(history.map((r) => [r.revision, r.status, r.image])).toEqual([
      [4, 'deployed', 'nginx:1'],
      [3, 'superseded', 'nginx:2'],
      [2, 'superseded', 'nginx:2'],
      [1, 'superseded', 'nginx:1'],
    ]);
    expect(history[0]!.change).toBe('Rollback to 1');
    expect(history[1]!.change).toBe('config set B');
    expect(history[3]!.change).toBe('deployed nginx:1');
    expect(history.every((r) => r.rollbackable && r.job && r.by?.startsWith('cli:'))).toBe(true);

    // The saved spec followed the rollback: config:set keeps image nginx:1.
    await ok(['config:set', 'roll', 'B=3', '--wait']);
    expect(await imageOf('roll')).toBe('nginx:1');
    expect(await envOf('roll')).toEqual({ A: '1', B: '3' });

    // Without a revision: the previous deployed one (4, image nginx:1, env A=1).
    await ok(['releases:rollback', 'roll', '--wait']);
    expect((await releases('roll'))[0]).toMatchObject({
      revision: 6,
      change: 'Rollback to 4',
      image: 'nginx:1',
    });
    expect(await envOf('roll')).toEqual({ A: '1' });

    const table = await ok(['releases', 'roll']);
    expect(table).toMatch(/REVISION\s+STATUS\s+IMAGE\s+CHANGE\s+WHEN\s+BY/);
    expect(table).toMatch(/6\s+deployed\s+nginx:1\s+Rollback to 4/);
  });

  it('refuses an unknown revision writing nothing, and brings back a value changed since', async () => {
    await ok(['config:set', 'refuse', 'A=1', '--wait']);
    await ok(['deploy', 'refuse', '--image', 'nginx:1', '--wait']);
    await ok(['config:set', 'refuse', 'A=2', '--wait']);

    const writes = await fleet.writesDuring(async () => {
      const unknown = await fleet.cli(['releases:rollback', 'refuse', '9', '--wait']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/app refuse has no revision 9 \(its revisions: 1, 2\)/);
    });
    expect(writes).toEqual([]);
    expect((await releases('refuse')).map((r) => r.revision)).toEqual([2, 1]);

    // The live Secret holds A=2; history keeps A=1 sealed: the rollback restores it.
    await ok(['releases:rollback', 'refuse', '1', '--wait']);
    expect(await envOf('refuse')).toEqual({ A: '1' });
    await ok(['deploy', 'refuse', '--image', 'nginx:2', '--wait']);
    expect(await envOf('refuse')).toEqual({ A: '1' });
  });

  it('puts config back to what runs when the app rollback fails', async () => {
    await ok(['properties:set', 'undo', 'deploy-timeout', '3', '--wait']);
    await ok(['config:set', 'undo', 'A=1', '--wait']);
    await ok(['deploy', 'undo', '--image', 'registry.example.com/undo:1', '--wait']);
    await ok(['deploy', 'undo', '--image', 'registry.example.com/undo:2', '--wait']);
    await ok(['config:set', 'undo', 'A=2', '--wait']);
    // Revision 1's image is gone from the registry: its rollout cannot become available.
    fleet.sim.settings.unpullableImages.push('registry.example.com/undo:1');

    const failed = await fleet.cli(['releases:rollback', 'undo', '1', '--wait']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/ErrImagePull|ImagePullBackOff/);
    expect(failed.stdout).toMatch(/config-undo: back at the values of revision \d+/);
    // The pods that still serve (image undo:2) were started with A=2: config-undo holds it again.
    expect(await envOf('undo')).toEqual({ A: '2' });
    expect(await imageOf('undo')).toBe('registry.example.com/undo:1');

    // The next job builds on what the app ran before the failed rollback.
    fleet.sim.settings.unpullableImages.pop();
    await ok(['config:set', 'undo', 'B=3', '--wait']);
    expect(await envOf('undo')).toEqual({ A: '2', B: '3' });
    expect(await imageOf('undo')).toBe('registry.example.com/undo:2');
  });

  it('says so for an app that does not exist (exit 1 from the read job)', async () => {
    for (const command of ['releases', 'apps:report']) {
      const result = await fleet.cli([command, 'nobody']);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/app nobody does not exist in this cluster/);
    }
  });

  it('refuses bad input before enqueueing', async () => {
    const bad = await fleet.cli(['releases:rollback', 'roll', 'x1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/revision: "x1" is not a revision number/);
  });
});

const PROCFILE = 'web: bundle exec puma -p 5000\nworker: bundle exec sidekiq\n';

async function deployTwoProcesses(app: string): Promise<void> {
  await ok([
    'deploy',
    app,
    '--image',
    'nginx:1',
    '--procfile',
    fleet.file(`${app}.Procfile`, PROCFILE),
    '--app-json',
    fleet.file(
      `${app}.app.json`,
      JSON.stringify({ formation: { web: { quantity: 2 }, worker: { quantity: 1 } } }),
    ),
    '--wait',
  ]);
}

async function deploymentsOf(app: string): Promise<Map<string, k8s.V1Deployment>> {
  const list = await fleet.apps.listNamespacedDeployment({
    namespace: 'default',
    labelSelector: `app.kubernetes.io/part-of=${app}`,
  });
  return new Map(list.items.map((d) => [d.metadata!.name!, d]));
}

async function replicaSetNames(app: string): Promise<string[]> {
  const list = await fleet.apps.listNamespacedReplicaSet({
    namespace: 'default',
    labelSelector: `app.kubernetes.io/part-of=${app}`,
  });
  return list.items.map((rs) => rs.metadata!.name!).sort();
}

async function podNames(app: string): Promise<string[]> {
  const list = await fleet.core.listNamespacedPod({
    namespace: 'default',
    labelSelector: `app.kubernetes.io/part-of=${app}`,
  });
  return list.items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .map((p) => p.metadata!.name!)
    .sort();
}

describe('processes and resources', () => {
  it('ps:restart rolls every pod through one new ReplicaSet per process; a later deploy keeps it', async () => {
    await deployTwoProcesses('bounce');
    await fleet.sim.settle();
    const rsBefore = await replicaSetNames('bounce');
    const podsBefore = await podNames('bounce');
    expect(podsBefore).toHaveLength(3);

    await ok(['ps:restart', 'bounce', '--wait']);
    const rsAfter = await replicaSetNames('bounce');
    expect(rsAfter.filter((n) => !rsBefore.includes(n))).toHaveLength(2);
    expect(
      rsAfter
        .filter((n) => !rsBefore.includes(n))
        .map((n) => n.replace(/-[a-z0-9]+$/, ''))
        .sort(),
    ).toEqual(['bounce-web', 'bounce-worker']);
    const podsAfter = await until(async () => {
      const names = await podNames('bounce');
      return names.length === 3 && names.every((n) => !podsBefore.includes(n)) && names;
    }, 'every pod of bounce replaced');
    expect(podsAfter).toHaveLength(3);
    for (const d of (await deploymentsOf('bounce')).values())
      expect(d.spec?.template.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt']).toMatch(
        /^20\d\d-/,
      );

    // The annotation is kept in the spec: the same deploy again creates no ReplicaSet.
    await deployTwoProcesses('bounce');
    expect(await replicaSetNames('bounce')).toEqual(rsAfter);

    // Only TYPE: one new ReplicaSet, for worker.
    await ok(['ps:restart', 'bounce', 'worker', '--wait']);
    const rsWorker = (await replicaSetNames('bounce')).filter((n) => !rsAfter.includes(n));
    expect(rsWorker.map((n) => n.replace(/-[a-z0-9]+$/, ''))).toEqual(['bounce-worker']);

    const unknown = await fleet.cli(['ps:restart', 'bounce', 'clock', '--wait']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown process type "clock" \(app bounce has: web, worker\)/);
  });

  it('ps:stop scales every process to 0 and ps:start brings the same formation back', async () => {
    await deployTwoProcesses('nap');
    const replicas = async () =>
      Object.fromEntries([...(await deploymentsOf('nap'))].map(([name, d]) => [name, d.spec?.replicas]));
    expect(await replicas()).toEqual({ 'nap-web': 2, 'nap-worker': 1 });
    await ok(['ps:stop', 'nap', '--wait']);
    expect(await replicas()).toEqual({ 'nap-web': 0, 'nap-worker': 0 });
    // Stopping again keeps the formation it was stopped with.
    await ok(['ps:stop', 'nap', '--wait']);
    await ok(['ps:start', 'nap', '--wait']);
    expect(await replicas()).toEqual({ 'nap-web': 2, 'nap-worker': 1 });
  });

  it('resource:limit --process web sets the web container only; a request above it is refused', async () => {
    await deployTwoProcesses('tight');
    await ok(['resource:limit', 'tight', '--process', 'web', '--memory', '512Mi', '--wait']);
    const deployments = await deploymentsOf('tight');
    const web = deployments.get('tight-web')!.spec!.template.spec!.containers[0]!;
    const worker = deployments.get('tight-worker')!.spec!.template.spec!.containers[0]!;
    expect(web.resources?.limits).toEqual({ memory: '512Mi' });
    expect(worker.resources?.limits).toBeUndefined();
    expect(worker.resources?.requests).toEqual({ cpu: '100m', memory: '128Mi' });

    const writes = await fleet.writesDuring(async () => {
      const above = await fleet.cli([
        'resource:reserve',
        'tight',
        '--process',
        'web',
        '--memory',
        '1Gi',
        '--wait',
      ]);
      expect(above.code).toBe(1);
      expect(above.stderr).toMatch(/the memory request 1Gi of web would be above its limit 512Mi/);
    });
    expect(writes).toEqual([]);

    await ok(['resource:reserve', 'tight', '--cpu', '250m', '--wait']);
    const after = await deploymentsOf('tight');
    for (const d of after.values())
      expect(d.spec!.template.spec!.containers[0]!.resources?.requests?.cpu).toBe('250m');
    await ok(['resource:limit', 'tight', '--process', 'web', '--clear', '--wait']);
    expect(
      (await deploymentsOf('tight')).get('tight-web')!.spec!.template.spec!.containers[0]!.resources?.limits,
    ).toBeUndefined();

    const both = await fleet.cli(['resource:limit', 'tight', '--clear', '--cpu', '1']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/clear: cannot be combined with --cpu or --memory/);
  });
});

describe('apps:report', () => {
  it('prints the spec, formation, domains, resources, revision, image and last jobs', async () => {
    await deployTwoProcesses('told');
    await ok(['domains:add', 'told', 'told.example.com', '--wait']);
    await ok(['resource:limit', 'told', '--process', 'web', '--memory', '512Mi', '--wait']);
    const out = await ok(['apps:report', 'told']);
    expect(out).toMatch(/^image +nginx:1$/m);
    expect(out).toMatch(/^formation +web=2 worker=1$/m);
    expect(out).toMatch(/^ {2}web +limits cpu=- memory=512Mi$/m);
    expect(out).toMatch(/^domains +told\.example\.com$/m);
    expect(out).toMatch(/^revision +3 deployed \(limits of web: memory=512Mi\)$/m);
    expect(out).toMatch(/app\.told\.\d+ +completed .*resource:limit told web memory=512Mi/);
    const json = JSON.parse(await ok(['apps:report', 'told', '--json'])) as {
      result: { spec: { processes: Record<string, { replicas: number }> }; jobs: { type: string }[] };
    };
    expect(json.result.spec.processes.web!.replicas).toBe(2);
    expect(json.result.jobs.map((j) => j.type)).toEqual(['resources', 'domains', 'deploy']);
  });
});

describe('a worker killed mid-rollback', () => {
  it('is taken over by another worker: one rollback revision of the app and of its config', async () => {
    const store = await fleet.store();
    await ok(['config:set', 'crashy', 'A=1', '--wait']);
    await ok(['deploy', 'crashy', '--image', 'nginx:1', '--wait']);
    await ok(['config:set', 'crashy', 'B=2', '--wait']);
    expect(store.history('crashy').map((r) => r.revision)).toEqual([1, 2]);
    expect(store.history('config-crashy').map((r) => r.revision)).toEqual([1, 2]);

    // Slow pods, so the rollback still waits for its rollout when its worker dies.
    const readyDelay = fleet.sim.settings.podReadyDelayMs;
    fleet.sim.settings.podReadyDelayMs = 4_000;
    try {
      const waiting = fleet.cli(['releases:rollback', 'crashy', '--wait'], { timeoutMs: 120_000 });
      await until(
        () => (store.last('crashy')?.status === 'pending-rollback' ? true : undefined),
        'the rollback to store its pending revision',
      );
      const first = fleet.workers[0]!;
      first.kill('SIGKILL');
      await first.exited;
      await fleet.startWorker();
      const result = await waiting;
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/rolled back to revision 1 \(crashy revision 3/);
    } finally {
      fleet.sim.settings.podReadyDelayMs = readyDelay;
    }
    expect(store.history('crashy').map((r) => [r.revision, r.status, r.description])).toEqual([
      [1, 'superseded', 'deployed nginx:1'],
      [2, 'superseded', 'config set B'],
      [3, 'deployed', 'Rollback to 1'],
    ]);
    expect(store.history('config-crashy').map((r) => [r.revision, r.status])).toEqual([
      [1, 'superseded'],
      [2, 'superseded'],
      [3, 'deployed'],
    ]);
    expect(await envOf('crashy')).toEqual({ A: '1' });
  });
});

describe('a worker killed mid-rollback whose rollout then fails', () => {
  it('puts config back to the revision before the job, which the retried attempt only knows from its record', async () => {
    const store = await fleet.store();
    await ok(['properties:set', 'relapse', 'deploy-timeout', '3', '--wait']);
    await ok(['config:set', 'relapse', 'A=1', '--wait']);
    await ok(['deploy', 'relapse', '--image', 'registry.example.com/relapse:1', '--wait']);
    await ok(['deploy', 'relapse', '--image', 'registry.example.com/relapse:2', '--wait']);
    await ok(['config:set', 'relapse', 'A=2', '--wait']);
    const configBefore = store.deployed('config-relapse')!.revision;

    // Revision 1's image cannot be pulled: the rollback waits for a rollout that cannot finish.
    fleet.sim.settings.unpullableImages.push('registry.example.com/relapse:1');
    try {
      const waiting = fleet.cli(['releases:rollback', 'relapse', '1', '--wait'], { timeoutMs: 120_000 });
      await until(
        () => (store.last('relapse')?.status === 'pending-rollback' ? true : undefined),
        'the app rollback to be pending (config already rolled back)',
      );
      expect(await envOf('relapse')).toEqual({ A: '1' });
      const worker = fleet.workers.at(-1)!;
      worker.kill('SIGKILL');
      await worker.exited;
      await fleet.startWorker();
      const result = await waiting;
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/ErrImagePull|ImagePullBackOff/);
      expect(result.stdout).toMatch(
        new RegExp(`config-relapse: back at the values of revision ${configBefore} `),
      );
    } finally {
      fleet.sim.settings.unpullableImages.pop();
    }
    // The pods that serve (relapse:2) were started with A=2, and config-relapse holds it again.
    expect(await envOf('relapse')).toEqual({ A: '2' });
    expect(store.deployed('config-relapse')?.description).toBe(`Rollback to ${configBefore}`);
  });
});
