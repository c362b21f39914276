/**
 * Postdeploy end to end (CLI → Redis → worker process → kube-sim over HTTP): app.json
 * `scripts.dokku.postdeploy` runs as the Job `{app}-postdeploy-{revision}` after the app release's
 * rollout, its output in the deploy's `--wait` stream; a failing task fails the job but keeps the
 * new revision deployed; `jobs:retry` of that job runs the task again without redeploying; a worker
 * killed while the task runs leaves a job whose next attempt follows the same Job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

function deploy(app: string, image: string, postdeploy: string) {
  return fleet.cli(
    [
      'deploy',
      app,
      '--image',
      image,
      '--procfile',
      fleet.file(`${app}.Procfile`, 'web: bundle exec puma -p 5000\n'),
      '--app-json',
      fleet.file(`${app}.app.json`, JSON.stringify({ scripts: { dokku: { postdeploy } } })),
      '--wait',
    ],
    { timeoutMs: 120_000 },
  );
}

const { job, finished, replicaSetsOf, jobCreates } = deployTaskChecks(() => fleet, 'postdeploy');

interface ShownJob {
  state: string;
  failedReason?: string;
  logs: string[];
}

async function shown(id: string): Promise<ShownJob> {
  return JSON.parse(await fleet.ok(['jobs:show', id, '--json'])) as ShownJob;
}

function jobIdOf(output: string): string {
  const id = /enqueued deploy job (\S+)/.exec(output)?.[1];
  expect(id, output).toBeDefined();
  return id!;
}

describe('postdeploy', () => {
  it('runs after the rollout, prints its output in order, and only when a new revision rolled out', async () => {
    const result = await deploy(
      'notify',
      'registry.example.com/notify:1',
      "sh -c 'echo notifying 1; echo notifying 2; echo notified'",
    );
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    const at = (text: string | RegExp) => {
      const index = typeof text === 'string' ? out.indexOf(text) : out.search(text);
      expect(index, `${text} in:\n${out}`).toBeGreaterThanOrEqual(0);
      return index;
    };
    const deployed = at(/^\s*notify: revision 1 deployed/m);
    const step = at('Running the postdeploy task (notify-postdeploy-1)');
    const first = at('notifying 1');
    const second = at('notifying 2');
    const last = at('notified\n');
    const succeeded = at('postdeploy task notify-postdeploy-1: succeeded');
    expect([deployed, step, first, second, last, succeeded]).toEqual(
      [deployed, step, first, second, last, succeeded].sort((a, b) => a - b),
    );
    expect(out).not.toMatch(/not supported by longshore/);
    expect(await finished('notify', 1)).toBe('Complete');
    const task = (await job('notify', 1))!;
    expect(task.metadata?.labels?.['longshore.dev/job']).toBe('postdeploy');
    const container = task.spec!.template.spec!.containers[0]!;
    expect(container.image).toBe('registry.example.com/notify:1');
    expect(container.envFrom).toEqual([{ secretRef: { name: 'config-notify', optional: true } }]);
    expect(task.spec!.template.spec!.serviceAccountName).toBe('notify');

    // The same deploy again rolls nothing out: no postdeploy task. Nor does a config:set.
    const creates = jobCreates();
    const same = await deploy(
      'notify',
      'registry.example.com/notify:1',
      "sh -c 'echo notifying 1; echo notifying 2; echo notified'",
    );
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toMatch(/notify: unchanged \(revision 1\)/);
    expect(same.stdout).not.toMatch(/postdeploy task/);
    const config = await fleet.cli(['config:set', 'notify', 'GREETING=hi', '--wait'], { timeoutMs: 120_000 });
    expect(config.code, config.stderr).toBe(0);
    expect(config.stdout).toMatch(/notify: revision 2 deployed/);
    expect(config.stdout).not.toMatch(/postdeploy task/);
    expect(jobCreates()).toBe(creates);
  });

  it('a task that exits 3 fails the job, keeps the new revision deployed, and a retry runs only the task again', async () => {
    const ok = await deploy('warmy', 'registry.example.com/warmy:1', "sh -c 'echo warm'");
    expect(ok.code, ok.stderr).toBe(0);

    const failed = await deploy(
      'warmy',
      'registry.example.com/warmy:2',
      "sh -c 'echo warming the cache; echo cache unreachable >&2; exit 3'",
    );
    expect(failed.code).not.toBe(0);
    const said = `${failed.stdout}\n${failed.stderr}`;
    expect(said).toMatch(/warmy: revision 2 deployed[\s\S]*warming the cache[\s\S]*cache unreachable/);
    const reason =
      /postdeploy task warmy-postdeploy-2 exited 3; its last lines: warming the cache \| cache unreachable; revision 2 stays deployed/;
    expect(said).toMatch(reason);
    expect(await finished('warmy', 2)).toBe('Failed');
    const id = jobIdOf(said);
    const afterFailure = await shown(id);
    expect(afterFailure.state).toBe('failed');
    expect(afterFailure.failedReason).toMatch(reason);
    // The new image serves: revision 2 is deployed, nothing was rolled back.
    const web = await fleet.apps.readNamespacedDeployment({ name: 'warmy-web', namespace: 'default' });
    expect(web.spec!.template.spec!.containers[0]!.image).toBe('registry.example.com/warmy:2');
    const status = await fleet.ok(['apps:status', 'warmy']);
    expect(status).toMatch(/revision 2 deployed/);
    expect(status).not.toMatch(/revision \d+ failed/);
    const replicaSets = await replicaSetsOf('warmy');

    // jobs:retry: the upgrade is a no-op (revision 2 is deployed), the task runs again.
    const creates = jobCreates();
    await fleet.ok(['jobs:retry', id]);
    const retried = await until(
      async () => {
        const s = await shown(id);
        return s.state === 'failed' && s.logs.some((l) => /running it again/.test(l)) ? s : undefined;
      },
      'the retried job to fail again',
      { timeoutMs: 60_000 },
    );
    const logs = retried.logs.join('\n');
    expect(logs).toMatch(
      /postdeploy task warmy-postdeploy-2: failed earlier \(revision 2\); running it again/,
    );
    expect(logs).toMatch(/warmy: unchanged \(revision 2\)/);
    expect(retried.failedReason).toMatch(reason);
    expect(jobCreates() - creates).toBe(1);
    expect(await replicaSetsOf('warmy')).toEqual(replicaSets);
    expect(await fleet.ok(['apps:status', 'warmy'])).toMatch(/revision 2 deployed/);
  });

  it('a worker killed while the task runs: the next attempt follows the same Job and never runs it again', async () => {
    const killed = fleet.workers.at(-1)!;
    const createsBefore = jobCreates();
    const waiting = deploy(
      'crashy',
      'registry.example.com/crashy:1',
      "sh -c 'echo once; sleep 3; echo done'",
    );
    await until(async () => ((await job('crashy', 1)) ? true : undefined), 'the postdeploy Job', {
      timeoutMs: 60_000,
    });
    killed.kill('SIGKILL');
    await killed.exited;
    await fleet.startWorker();
    const result = await waiting;
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/crashy: revision 1 deployed/);
    // The next attempt's upgrade is a no-op (the first one rolled out), and the task still ran to its end.
    expect(result.stdout).toMatch(
      /crashy: unchanged \(revision 1\)[\s\S]*postdeploy task crashy-postdeploy-1: succeeded/,
    );
    expect(result.stdout.split('Job default/crashy-postdeploy-1 created').length - 1).toBe(1);
    expect(result.stdout).toMatch(/done/);
    // One Job for the task, one pod: the resumed attempt followed it rather than creating another.
    expect(jobCreates() - createsBefore).toBe(1);
    const taskPods = await fleet.core.listNamespacedPod({
      namespace: 'default',
      labelSelector: 'batch.kubernetes.io/job-name=crashy-postdeploy-1',
    });
    expect(taskPods.items).toHaveLength(1);
  });

  it('refuses an empty postdeploy command by its path, before anything is enqueued (exit 2)', async () => {
    const empty = await fleet.cli([
      'deploy',
      'bad',
      '--image',
      'registry.example.com/bad:1',
      '--app-json',
      fleet.file('empty.app.json', JSON.stringify({ scripts: { dokku: { postdeploy: ' ' } } })),
    ]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/empty\.app\.json.*scripts\.dokku\.postdeploy: must not be empty/s);
    expect(await fleet.ok(['apps:list', '--all'])).not.toMatch(/\bbad\b/);
  });
});
