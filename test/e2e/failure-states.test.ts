/**
 * Issue 11, case 6: a job that gives up leaves an honest state. A deploy whose attempts run out
 * marks its revision `failed` (not `pending-upgrade`), a cancel during the rollout does the same and
 * restores the deployed revision, and `apps:status` shows the deployed revision and the failed one.
 * CLI → Redis → worker process → kube-sim over HTTP.
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

function deployArgs(app: string, image: string): string[] {
  const procfile = fleet.file(`${app}.Procfile`, 'web: nginx -g "daemon off;"\n');
  return ['deploy', app, '--image', image, '--procfile', procfile, '--wait'];
}

async function image(app: string): Promise<string | undefined> {
  const web = await fleet.apps.readNamespacedDeployment({ name: `${app}-web`, namespace: 'default' });
  return web.spec?.template.spec?.containers[0]?.image;
}

interface AppStatus {
  revision?: number;
  image?: string;
  deployedRevision?: { revision: number; image?: string; rollbackTo?: number };
  failedRevision?: { revision: number; reason: string };
}

async function appStatus(app: string): Promise<{ json: AppStatus; text: string }> {
  return {
    json: JSON.parse(await ok(['apps:status', app, '--json'])) as AppStatus,
    text: await ok(['apps:status', app]),
  };
}

describe('failure states', () => {
  it('a deploy whose attempts run out marks its revision failed; the previous one stays deployed', async () => {
    const app = 'spent';
    await ok(deployArgs(app, 'nginx:1.27'));
    // Every write of a Deployment answers 500: each attempt's apply exhausts its in-call retries
    // (a TransientError), and the job has two attempts.
    fleet.sim.faults.add({ verb: 'patch', resource: 'apps/deployments', errorRate: 1, status: 500 });
    const failed = await runCli(deployArgs(app, 'nginx:1.28'), { ...fleet.env, LONGSHORE_JOB_ATTEMPTS: '2' });
    expect(failed.code).toBe(1);
    expect(failed.stdout + failed.stderr).toMatch(/attempt 2/);
    fleet.sim.faults.clear();

    await until(
      () => (store.history(app).length === 2 ? store.history(app) : undefined),
      'two revisions in the test store',
    );
    await until(
      () => (store.last(app)?.status === 'failed' ? true : undefined),
      `revision 2 failed (history: ${JSON.stringify(store.history(app).map((r) => [r.revision, r.status]))})`,
      { timeoutMs: 5_000 },
    );
    expect(store.history(app).map((r) => r.status)).toEqual(['deployed', 'failed']);
    expect(store.last(app)?.description).toMatch(/will not retry: .*(500|Internal)/i);
    expect(await image(app)).toBe('nginx:1.27');

    const status = await appStatus(app);
    expect(status.json.deployedRevision).toEqual({ revision: 1, image: 'nginx:1.27' });
    expect(status.json.failedRevision).toMatchObject({
      revision: 2,
      reason: expect.stringMatching(/will not retry/),
    });
    expect(status.text).toMatch(/revision 1 deployed \(nginx:1\.27\)/);
    expect(status.text).toMatch(/revision 2 failed: interrupted, and its job will not retry/);

    // The next deploy is a normal upgrade: nothing pending to recover, and the failure is cleared.
    const next = await ok(deployArgs(app, 'nginx:1.28'));
    expect(next).not.toMatch(/interrupted: the worker holding it stopped/);
    expect(next).toMatch(/spent: revision 3 deployed/);
    const after = await appStatus(app);
    expect(after.json.deployedRevision).toEqual({ revision: 3, image: 'nginx:1.28' });
    expect(after.json.failedRevision).toBeUndefined();
  });

  it('with rollback-on-failure, a deploy that gives up restores the deployed revision', async () => {
    const app = 'spent-rb';
    await ok(['properties:set', app, 'rollback-on-failure', 'true', '--wait']);
    await ok(deployArgs(app, 'nginx:1.27'));
    // Two attempts of five in-call tries each fail; the restore's apply then goes through.
    fleet.sim.faults.add({
      verb: 'patch',
      resource: 'apps/deployments',
      errorRate: 1,
      status: 500,
      limit: 10,
    });
    const failed = await runCli(deployArgs(app, 'nginx:1.28'), { ...fleet.env, LONGSHORE_JOB_ATTEMPTS: '2' });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/rolled back to revision 1 \(as revision 3\)/);
    await until(
      () =>
        store
          .history(app)
          .map((r) => r.status)
          .join() === 'superseded,failed,deployed'
          ? true
          : undefined,
      'revision 2 failed and revision 3 deployed',
    );
    expect(await image(app)).toBe('nginx:1.27');
    const status = await appStatus(app);
    expect(status.json.deployedRevision).toEqual({ revision: 3, image: 'nginx:1.27', rollbackTo: 1 });
    expect(status.json.failedRevision?.revision).toBe(2);
    // The app's revision and image (apps:list) agree with the restore, not with the last success.
    expect(status.json).toMatchObject({ revision: 3, image: 'nginx:1.27' });
  });

  it('a cancel during the rollout marks the revision failed and restores the previous image', async () => {
    const app = 'halt';
    await ok(deployArgs(app, 'nginx:1.27'));
    // The new image never pulls: the rollout waits (up to the default 300 s) until the cancel.
    fleet.sim.settings.unpullableImages.push('nginx:1.99');
    const deploy = startProcess(CLI, deployArgs(app, 'nginx:1.99'), fleet.env);
    const enqueued = await deploy.waitForLine(/enqueued deploy job \S+/);
    const jobId = /enqueued deploy job (\S+)/.exec(enqueued)![1]!;
    await deploy.waitForLine(/halt: waiting for 1 object/);
    expect(store.last(app)).toMatchObject({ revision: 2, status: 'pending-upgrade' });
    expect(await image(app)).toBe('nginx:1.99');

    expect(await ok(['jobs:cancel', jobId])).toMatch(/cancel requested/);
    const exit = await deploy.exited;
    expect(exit.code).not.toBe(0);
    expect(deploy.output()).toMatch(/cancel/);

    await until(
      () =>
        store
          .history(app)
          .map((r) => r.status)
          .join() === 'superseded,failed,deployed'
          ? true
          : undefined,
      `revision 2 failed and revision 3 deployed (history: ${JSON.stringify(store.history(app).map((r) => [r.revision, r.status]))})`,
    );
    expect(store.history(app)[1]?.description).toMatch(/cancelled/);
    expect(store.history(app)[2]?.description).toBe('Rollback to 1');
    expect(await image(app)).toBe('nginx:1.27');
    await fleet.sim.settle();
    const web = await fleet.apps.readNamespacedDeployment({ name: `${app}-web`, namespace: 'default' });
    expect(web.status?.updatedReplicas).toBe(web.spec?.replicas);
    expect(web.status?.unavailableReplicas ?? 0).toBe(0);

    const status = await appStatus(app);
    expect(status.json.deployedRevision).toEqual({ revision: 3, image: 'nginx:1.27', rollbackTo: 1 });
    expect(status.json.failedRevision).toMatchObject({
      revision: 2,
      reason: expect.stringMatching(/cancelled/),
    });
    expect(status.text).toMatch(/revision 3 deployed \(nginx:1\.27, rollback to 1\)/);
    expect(status.text).toMatch(/revision 2 failed: cancelled/);
  });
});
