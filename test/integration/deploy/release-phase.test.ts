/**
 * The release phase end to end (CLI → Redis → worker process → kube-sim over HTTP): a Procfile
 * `release` runs as the Job `{app}-release-{revision}` before the app release's first write, its
 * output in the deploy's `--wait` stream; a failing task leaves the previous revision serving; a
 * worker killed after the task succeeded leaves a job whose retry does not run it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../../infra/kube-sim/server/faults.ts';
import { type DeployFleet, startDeployFleet } from '../../helpers/deploy-fleet.ts';
import { deployTaskChecks } from '../../helpers/deploy-task-checks.ts';
import { until } from '../../helpers/wait.ts';

let fleet: DeployFleet;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
});

afterAll(async () => {
  await fleet?.stop();
});

const procfile = (release: string) => `web: bundle exec puma -p 5000\nrelease: ${release}\n`;

function deploy(app: string, image: string, release: string) {
  return fleet.cli(
    [
      'deploy',
      app,
      '--image',
      image,
      '--procfile',
      fleet.file(`${app}.Procfile`, procfile(release)),
      '--wait',
    ],
    { timeoutMs: 120_000 },
  );
}

const { job, finished, replicaSetsOf, jobCreates } = deployTaskChecks(() => fleet, 'release');

async function podsOf(app: string): Promise<string[]> {
  const pods = await fleet.core.listNamespacedPod({
    namespace: 'default',
    labelSelector: `app.kubernetes.io/part-of=${app}`,
  });
  return pods.items
    .filter((p) => p.metadata?.labels?.['longshore.dev/job'] === undefined && !p.metadata?.deletionTimestamp)
    .map((p) => p.metadata!.name!)
    .sort();
}

describe('the release phase', () => {
  it('runs the task before the rollout, prints its output in order, and never makes a Deployment of it', async () => {
    const result = await deploy(
      'shop',
      'registry.example.com/shop:1',
      "sh -c 'echo migrating 1; echo migrating 2; echo migrated'",
    );
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    const at = (text: string | RegExp) => {
      const index = typeof text === 'string' ? out.indexOf(text) : out.search(text);
      expect(index, `${text} in:\n${out}`).toBeGreaterThanOrEqual(0);
      return index;
    };
    const step = at('Running the release task (shop-release-1)');
    const first = at('migrating 1');
    const second = at('migrating 2');
    const last = at('migrated\n');
    const succeeded = at('release task shop-release-1: succeeded');
    const deployed = at(/^\s*shop: revision 1 deployed/m);
    expect([step, first, second, last, succeeded, deployed]).toEqual(
      [step, first, second, last, succeeded, deployed].sort((a, b) => a - b),
    );
    expect(await finished('shop', 1)).toBe('Complete');
    // The task's Job carries the new image and the app's config; no Deployment for `release`.
    const task = (await job('shop', 1))!;
    const container = task.spec!.template.spec!.containers[0]!;
    expect(container.image).toBe('registry.example.com/shop:1');
    expect(container.args).toEqual(['sh', '-c', 'echo migrating 1; echo migrating 2; echo migrated']);
    expect(container.envFrom).toEqual([{ secretRef: { name: 'config-shop', optional: true } }]);
    const deployments = await fleet.apps.listNamespacedDeployment({ namespace: 'default' });
    const names = deployments.items.map((d) => d.metadata!.name).filter((n) => n?.startsWith('shop-'));
    expect(names).toEqual(['shop-web']);
  });

  it('a task that exits 3 fails the deploy with its output and rolls out nothing; the next deploy runs it again', async () => {
    const ok = await deploy('inky', 'registry.example.com/inky:1', "sh -c 'echo ready'");
    expect(ok.code, ok.stderr).toBe(0);
    await until(async () => ((await podsOf('inky')).length === 1 ? true : undefined), 'the web pod of inky');
    const pods = await podsOf('inky');
    const replicaSets = await replicaSetsOf('inky');

    const failed = await deploy(
      'inky',
      'registry.example.com/inky:2',
      "sh -c 'echo applying 0042; echo relation users does not exist >&2; exit 3'",
    );
    expect(failed.code).not.toBe(0);
    const said = `${failed.stdout}\n${failed.stderr}`;
    expect(said).toMatch(/applying 0042[\s\S]*relation users does not exist/);
    expect(said).toMatch(
      /release task inky-release-2 exited 3; its last lines: applying 0042 \| relation users does not exist/,
    );
    expect(await finished('inky', 2)).toBe('Failed');
    // Nothing of revision 2 rolled out: same ReplicaSets, same pods, the old image.
    const web = await fleet.apps.readNamespacedDeployment({ name: 'inky-web', namespace: 'default' });
    expect(web.spec!.template.spec!.containers[0]!.image).toBe('registry.example.com/inky:1');
    expect(await replicaSetsOf('inky')).toEqual(replicaSets);
    expect(await podsOf('inky')).toEqual(pods);
    const status = await fleet.ok(['apps:status', 'inky']);
    expect(status).toMatch(/revision 1 deployed/);
    expect(status).toMatch(/revision 2 failed: .*exited 3/);

    // The next deploy runs the task again (a new revision, a new Job), and rolls out.
    const again = await deploy('inky', 'registry.example.com/inky:2', "sh -c 'echo applying 0042 again'");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      /Running the release task \(inky-release-3\)[\s\S]*applying 0042 again[\s\S]*inky: revision 3 deployed/,
    );
    expect(await finished('inky', 3)).toBe('Complete');
  });

  it('a worker killed after the task succeeded: the retried job does not run it again and finishes', async () => {
    // The app release's first write (its ServiceAccount) is held, so the kill lands after the task.
    const held = {
      verb: 'patch',
      resource: '/serviceaccounts',
      namespace: 'default',
      name: 'crashy',
    } as const;
    fleet.sim.faults.set([{ ...held, latencyMs: 8_000 } satisfies FaultRule]);
    const killed = fleet.workers.at(-1)!;
    const createsBefore = jobCreates();
    const waiting = deploy('crashy', 'registry.example.com/crashy:1', "sh -c 'echo once'");
    try {
      await until(
        () => fleet.sim.requests.inFlight(held).length > 0 || undefined,
        'the apply of the ServiceAccount',
        {
          timeoutMs: 60_000,
        },
      );
      expect(await finished('crashy', 1)).toBe('Complete');
      killed.kill('SIGKILL');
      await killed.exited;
    } finally {
      fleet.sim.faults.clear();
    }
    await fleet.startWorker();
    const result = await waiting;
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(
      /release task crashy-release-1: succeeded earlier \(revision 1\); not run again/,
    );
    expect(result.stdout).toMatch(/crashy: revision 1 deployed/);
    expect(jobCreates() - createsBefore).toBe(1);
    const taskPods = await fleet.core.listNamespacedPod({
      namespace: 'default',
      labelSelector: 'batch.kubernetes.io/job-name=crashy-release-1',
    });
    expect(taskPods.items).toHaveLength(1);
  });

  it('an image the task cannot pull, or a task past its release-timeout, fails the deploy before any rollout', async () => {
    const ok = await deploy('pully', 'registry.example.com/pully:1', "sh -c 'echo fine'");
    expect(ok.code, ok.stderr).toBe(0);
    const replicaSets = await replicaSetsOf('pully');

    fleet.sim.settings.unpullableImages.push('registry.example.com/pully:2');
    const unpullable = await deploy('pully', 'registry.example.com/pully:2', "sh -c 'echo never'");
    expect(unpullable.code).not.toBe(0);
    expect(`${unpullable.stdout}\n${unpullable.stderr}`).toMatch(
      /release task pully-release-2: ErrImagePull: .*\(the Job was deleted\)/,
    );
    // The Job whose pod would wait for its image until the deadline is gone; nothing rolled out.
    await until(
      async () => ((await job('pully', 2)) === undefined ? true : undefined),
      'the unpullable Job to go',
    );
    expect(await replicaSetsOf('pully')).toEqual(replicaSets);

    await fleet.ok(['properties:set', 'pully', 'release-timeout', '2', '--wait']);
    const slow = await deploy('pully', 'registry.example.com/pully:3', "sh -c 'echo started; sleep 60'");
    expect(slow.code).not.toBe(0);
    expect(`${slow.stdout}\n${slow.stderr}`).toMatch(
      /release task pully-release-\d+: DeadlineExceeded: .*\(release-timeout 2 s\); its last lines: started/,
    );
    expect(await replicaSetsOf('pully')).toEqual(replicaSets);
    const web = await fleet.apps.readNamespacedDeployment({ name: 'pully-web', namespace: 'default' });
    expect(web.spec!.template.spec!.containers[0]!.image).toBe('registry.example.com/pully:1');
  });

  it('refuses an empty release command, two release tasks and a bad release-timeout before anything is enqueued (exit 2)', async () => {
    const empty = await fleet.cli([
      'deploy',
      'bad',
      '--image',
      'registry.example.com/bad:1',
      '--procfile',
      fleet.file('empty.Procfile', 'web: bin/web\nrelease:   \n'),
    ]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/empty\.Procfile.*line 2.*"release" has no command/s);

    const emptyPredeploy = await fleet.cli([
      'deploy',
      'bad',
      '--image',
      'registry.example.com/bad:1',
      '--app-json',
      fleet.file('empty.app.json', JSON.stringify({ scripts: { dokku: { predeploy: '  ' } } })),
    ]);
    expect(emptyPredeploy.code).toBe(2);
    expect(emptyPredeploy.stderr).toMatch(/empty\.app\.json.*scripts\.dokku\.predeploy: must not be empty/s);

    const both = await fleet.cli([
      'deploy',
      'bad',
      '--image',
      'registry.example.com/bad:1',
      '--procfile',
      fleet.file('both.Procfile', 'web: bin/web\nrelease: bin/migrate\n'),
      '--app-json',
      fleet.file('both.app.json', JSON.stringify({ scripts: { dokku: { predeploy: 'bin/prepare' } } })),
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(
      /both\.app\.json.*scripts\.dokku\.predeploy: declares a release task, and so does the "release" line of .*both\.Procfile/s,
    );

    const timeout = await fleet.cli(['properties:set', 'bad', 'release-timeout', '0']);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toMatch(/releaseTimeoutSeconds|release-timeout/);
    // Nothing was enqueued for the app: the fleet has never heard of it.
    expect(await fleet.ok(['apps:list', '--all'])).not.toMatch(/\bbad\b/);
  });

  it('an app destroyed and deployed again replaces the finished task Job its earlier life left', async () => {
    const first = await deploy('again', 'registry.example.com/again:1', "sh -c 'echo first life'");
    expect(first.code, first.stderr).toBe(0);
    const before = (await job('again', 1))!.metadata!.uid;
    await fleet.ok(['apps:destroy', 'again', '--force', '--wait']);
    // The task's Job is no release's: it stays for its TTL.
    expect((await job('again', 1))?.metadata?.uid).toBe(before);
    const second = await deploy('again', 'registry.example.com/again:2', "sh -c 'echo second life'");
    expect(second.code, `${second.stdout}\n${second.stderr}`).toBe(0);
    expect(second.stdout).toMatch(
      /Job default\/again-release-1 \(finished, left by an earlier deploy\) deleted/,
    );
    expect(second.stdout).toMatch(/second life[\s\S]*again: revision 1 deployed/);
    expect((await job('again', 1))?.metadata?.uid).not.toBe(before);
  });
});
