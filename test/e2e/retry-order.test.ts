/**
 * Issue 11, case 1, end to end with the real handlers: CLI → Redis → worker process → kube-sim.
 * A failed `config:set K=old` retried while a newer `config:set K=new` waits behind a slow deploy
 * would run last and leave K=old live. The retry is refused, naming the newer jobs, while they are
 * queued and after they succeeded; `--force` runs it at the end of the lane, as documented
 * (docs/ordering.md), and says so. Cases 2 and 3 the same way: supersession merges only deploys with
 * nothing but reconciles between them, and a reconcile is not newer work. (test/integration/
 * ordering-promises.test.ts covers the same rules with recording handlers.)
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { CLI, runCli, startProcess } from '../helpers/processes.ts';
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

afterEach(() => {
  fleet.sim.faults.clear();
});

const ok = (args: string[]) => fleet.ok(args);

function deployArgs(app: string, image: string, wait = true): string[] {
  const procfile = fleet.file(`${app}.Procfile`, 'web: nginx -g "daemon off;"\n');
  return ['deploy', app, '--image', image, '--procfile', procfile, ...(wait ? ['--wait'] : [])];
}

function enqueuedId(output: string): string {
  const match = /enqueued \S+ job (\S+)/.exec(output);
  if (!match) throw new Error(`no job id in:\n${output}`);
  return match[1]!;
}

async function stateOf(id: string): Promise<string> {
  return (JSON.parse(await ok(['jobs:show', id, '--json'])) as { state: string }).state;
}

async function liveValue(app: string, key: string): Promise<string | undefined> {
  const secret = await fleet.core.readNamespacedSecret({ name: `config-${app}`, namespace: 'default' });
  const value = secret.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

const re = (id: string) => id.replaceAll('.', '\\.');

describe('jobs:retry, supersession and newer work (issue 11, cases 1–3)', () => {
  it('refuses to retry config:set K=old over a newer K=new, queued or done; --force applies it last', async () => {
    const app = 'kold';
    await ok(deployArgs(app, 'nginx:1.27'));

    // K=old fails for good: every Secret patch answers 500 and the job has a single attempt.
    fleet.sim.faults.add({ verb: 'patch', resource: '/secrets', errorRate: 1, status: 500 });
    const old = await runCli(['config:set', app, 'K=old', '--wait'], {
      ...fleet.env,
      LONGSHORE_JOB_ATTEMPTS: '1',
    });
    fleet.sim.faults.clear();
    expect(old.code, old.stdout + old.stderr).toBe(1);
    const failedId = enqueuedId(old.stdout);
    expect(await stateOf(failedId)).toBe('failed');

    // A deploy whose image cannot be pulled yet holds the lane; K=new queues behind it.
    fleet.sim.settings.unpullableImages.push('nginx:1.28');
    const slow = startProcess(CLI, deployArgs(app, 'nginx:1.28'), fleet.env);
    const slowId = enqueuedId(await slow.waitForLine(/enqueued deploy job \S+/));
    await slow.waitForLine(new RegExp(`${app}: waiting for 1 object`));
    const newerId = enqueuedId(await ok(['config:set', app, 'K=new']));

    const refused = await runCli(['jobs:retry', failedId], fleet.env);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`${re(slowId)} \\(deploy, active\\)`));
    // `active` too: a loaded worker may just have taken it, on its way to being parked behind
    // the running deploy; what matters is that it is named as newer work.
    expect(refused.stderr).toMatch(new RegExp(`${re(newerId)} \\(config, (delayed|waiting|active)\\)`));
    expect(refused.stderr).toMatch(/--force/);
    expect(await stateOf(failedId)).toBe('failed');

    // The image becomes pullable: the deploy finishes and K=new goes live.
    fleet.sim.settings.unpullableImages.splice(fleet.sim.settings.unpullableImages.indexOf('nginx:1.28'), 1);
    expect((await slow.exited).code, slow.output()).toBe(0);
    await until(
      async () => ((await stateOf(newerId)) === 'completed' ? true : undefined),
      'K=new to complete',
    );
    expect(await liveValue(app, 'K')).toBe('new');

    // Still refused once the newer change has succeeded: re-applying K=old would undo it.
    const again = await runCli(['jobs:retry', failedId], fleet.env);
    expect(again.code, again.stdout + again.stderr).toBe(2);
    expect(again.stderr).toMatch(
      new RegExp(`a newer config of ${app} \\(${re(newerId)}\\) already succeeded`),
    );
    expect(await liveValue(app, 'K')).toBe('new');

    // Forced: it joins the end of the lane and its value wins, and the CLI says it was forced.
    expect(await ok(['jobs:retry', failedId, '--force'])).toMatch(
      new RegExp(`${re(failedId)} retried \\(forced: `),
    );
    await until(
      async () => ((await stateOf(failedId)) === 'completed' ? true : undefined),
      'the forced retry to complete',
    );
    expect(await liveValue(app, 'K')).toBe('old');
  });

  it('case 2: a deploy is superseded only by the next deploy, never across a config change', async () => {
    const app = 'lanes';
    await ok(deployArgs(app, 'nginx:1.25'));
    // 1.26 holds the lane until its image can be pulled; the rest queue behind it.
    fleet.sim.settings.unpullableImages.push('nginx:1.26');
    const running = startProcess(CLI, deployArgs(app, 'nginx:1.26'), fleet.env);
    await running.waitForLine(new RegExp(`${app}: waiting for 1 object`));
    const d127 = enqueuedId(await ok(deployArgs(app, 'nginx:1.27', false)));
    const d128 = enqueuedId(await ok(deployArgs(app, 'nginx:1.28', false)));
    const config = enqueuedId(await ok(['config:set', app, 'Z=1']));
    const d129 = enqueuedId(await ok(deployArgs(app, 'nginx:1.29', false)));
    fleet.sim.settings.unpullableImages.splice(fleet.sim.settings.unpullableImages.indexOf('nginx:1.26'), 1);
    expect((await running.exited).code, running.output()).toBe(0);
    for (const id of [d127, d128, config, d129])
      await until(async () => ((await stateOf(id)) === 'completed' ? true : undefined), `${id} to complete`, {
        timeoutMs: 60_000,
      });

    const shown = JSON.parse(await ok(['jobs:show', d127, '--json'])) as { returnValue: unknown };
    expect(shown.returnValue).toEqual({ outcome: 'superseded', supersededBy: d128 });
    // Sequential order minus 1.27: the config change rolled 1.28, then 1.29 deployed with Z=1.
    await until(
      () => (store.history(app).length === 5 ? true : undefined),
      `five revisions of ${app} (history: ${JSON.stringify(store.history(app).map((r) => r.description))})`,
    );
    expect(store.history(app).map((r) => r.description)).toEqual([
      'deployed nginx:1.25',
      'deployed nginx:1.26',
      'deployed nginx:1.28',
      'config set Z',
      'deployed nginx:1.29',
    ]);
    expect(await liveValue(app, 'Z')).toBe('1');
  });

  it('case 3: a reconcile that succeeded after a failed change does not make its retry refuse', async () => {
    const app = 'healed';
    await ok(deployArgs(app, 'nginx:1.27'));
    fleet.sim.faults.add({ verb: 'patch', resource: '/secrets', errorRate: 1, status: 500 });
    const bad = await runCli(['config:set', app, 'K=v', '--wait'], {
      ...fleet.env,
      LONGSHORE_JOB_ATTEMPTS: '1',
    });
    fleet.sim.faults.clear();
    expect(bad.code, bad.stdout + bad.stderr).toBe(1);
    const failedId = enqueuedId(bad.stdout);
    await ok(['jobs:enqueue', 'reconcile', '--payload', JSON.stringify({ app }), '--wait']);

    expect(await ok(['jobs:retry', failedId])).toMatch(new RegExp(`${re(failedId)} retried$`, 'm'));
    await until(
      async () => ((await stateOf(failedId)) === 'completed' ? true : undefined),
      'the retried change to complete',
    );
    expect(await liveValue(app, 'K')).toBe('v');
  });
});
