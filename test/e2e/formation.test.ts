/**
 * Formation and Procfile (issue 11, case 5), end to end: CLI → Redis → worker process → kube-sim.
 * A formation, healthcheck or `ps:scale` naming a process type the app does not have is refused
 * with the app's types and nothing written; only a Procfile that leaves a type out removes it, and
 * the job's log says so.
 */

import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobClient } from '../../src/jobs/client.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { until } from '../helpers/wait.ts';

let fleet: DeployFleet;
let redis: Redis;
let jobs: JobClient;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
  redis = new Redis(fleet.redis.url, { maxRetriesPerRequest: null });
  redis.on('error', () => undefined);
  jobs = new JobClient(redis, { attempts: 3, backoffMs: 50 });
});

afterAll(async () => {
  await jobs?.close();
  redis?.disconnect();
  await fleet?.stop();
});

const ok = (args: string[]) => fleet.ok(args);

const writesDuring = (fn: () => Promise<unknown>) => fleet.writesDuring(fn);

async function deploymentNames(app: string): Promise<string[]> {
  const list = await fleet.apps.listNamespacedDeployment({
    namespace: 'default',
    labelSelector: `app.kubernetes.io/part-of=${app}`,
  });
  return list.items.map((d) => d.metadata?.name ?? '').sort();
}

async function jobCount(): Promise<number> {
  const counts = await jobs.queue.getJobCounts();
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

describe('a formation naming an unknown process type', () => {
  it('is refused with the app’s types, and nothing is written: p5d-web and its Service stay', async () => {
    await ok(['deploy', 'p5d', '--image', 'nginx:1.27', '--wait']);
    expect(await deploymentNames('p5d')).toEqual(['p5d-web']);
    const appJson = fleet.file('p5d.app.json', '{"formation":{"nope":{"quantity":1}}}');

    const queued = await jobCount();
    const writes = await writesDuring(async () => {
      const result = await fleet.cli([
        'deploy',
        'p5d',
        '--image',
        'nginx:1.27',
        '--app-json',
        appJson,
        '--wait',
      ]);
      expect(result.stderr).toMatch(/formation: names process type "nope"; the app has: web/);
      // The CLI knows the app's types (recorded by the worker): refused before enqueueing.
      expect(result.code).toBe(2);
    });
    expect(writes).toEqual([]);
    expect(await jobCount()).toBe(queued);
    expect(await deploymentNames('p5d')).toEqual(['p5d-web']);
    await fleet.core.readNamespacedService({ name: 'p5d-web', namespace: 'default' });
  });

  it('is refused by the worker too, before any write, when the job reaches the queue', async () => {
    // Enqueued directly (as a producer that cannot know the app's types would): the worker refuses it.
    const writes = await writesDuring(async () => {
      const job = await jobs.enqueue(
        'deploy',
        { app: 'p5d', image: 'nginx:1.27', formation: { nope: { replicas: 1 } } },
        'test',
      );
      await until(
        async () => ((await jobs.queue.getJob(job.id))?.failedReason ? true : undefined),
        'the refusal',
      );
      const failed = (await jobs.queue.getJob(job.id))!;
      expect(failed.failedReason).toMatch(/formation: names process type "nope"; the app has: web/);
      expect(failed.attemptsMade).toBe(1);
    });
    expect(writes).toEqual([]);
    expect(await deploymentNames('p5d')).toEqual(['p5d-web']);
    await fleet.core.readNamespacedService({ name: 'p5d-web', namespace: 'default' });
  });

  it('with a Procfile, is refused by the CLI against the Procfile’s types', async () => {
    const queued = await jobCount();
    const result = await fleet.cli([
      'deploy',
      'p5d',
      '--image',
      'nginx:1.27',
      '--procfile',
      fleet.file('p5d.Procfile', 'web: nginx -g "daemon off;"\nworker: sleep infinity\n'),
      '--app-json',
      fleet.file('p5d-healthchecks.app.json', '{"healthchecks":{"clock":[{"path":"/"}]}}'),
    ]);
    expect(result.stderr).toMatch(
      /healthchecks\.clock: names process type "clock", which .*p5d\.Procfile does not declare; it declares: web, worker/,
    );
    expect(result.code).toBe(2);
    expect(await jobCount()).toBe(queued);
  });
});

describe('ps:scale of an unknown process type', () => {
  it('is refused by the CLI with the app’s types, and by the worker when enqueued anyway', async () => {
    const queued = await jobCount();
    const result = await fleet.cli(['ps:scale', 'p5d', 'web=2', 'nope=1', '--wait']);
    expect(result.stderr).toMatch(/processes\.nope: unknown process type "nope" \(app p5d has: web\)/);
    expect(result.code).toBe(2);
    expect(await jobCount()).toBe(queued);

    const writes = await writesDuring(async () => {
      const job = await jobs.enqueue('scale', { app: 'p5d', processes: { web: 2, nope: 1 } }, 'test');
      await until(
        async () => ((await jobs.queue.getJob(job.id))?.failedReason ? true : undefined),
        'the refusal',
      );
      const failed = (await jobs.queue.getJob(job.id))!;
      expect(failed.failedReason).toMatch(
        /processes\.nope: unknown process type "nope" \(app p5d has: web\)/,
      );
      expect(failed.attemptsMade).toBe(1);
    });
    expect(writes).toEqual([]);
    expect(
      (await fleet.apps.readNamespacedDeployment({ name: 'p5d-web', namespace: 'default' })).spec?.replicas,
    ).toBe(1);
  });
});

describe('removing a process type', () => {
  const both = 'web: nginx -g "daemon off;"\nworker: sleep infinity\n';

  it('happens only through the Procfile, and the job log says what was deleted', async () => {
    const procfile = fleet.file('p5r.Procfile', both);
    await ok(['deploy', 'p5r', '--image', 'nginx:1.27', '--procfile', procfile, '--wait']);
    expect(await deploymentNames('p5r')).toEqual(['p5r-web', 'p5r-worker']);

    // Neither a formation without a Procfile, nor a scale to 0, nor a plain deploy removes one.
    await ok([
      'deploy',
      'p5r',
      '--image',
      'nginx:1.27',
      '--app-json',
      fleet.file('p5r.app.json', '{"formation":{"web":{"quantity":2}}}'),
      '--wait',
    ]);
    await ok(['ps:scale', 'p5r', 'worker=0', '--wait']);
    const plain = await ok(['deploy', 'p5r', '--image', 'nginx:1.28', '--wait']);
    expect(plain).not.toMatch(/removed/);
    expect(await deploymentNames('p5r')).toEqual(['p5r-web', 'p5r-worker']);
    expect(
      (await fleet.apps.readNamespacedDeployment({ name: 'p5r-web', namespace: 'default' })).spec?.replicas,
    ).toBe(2);

    const out = await ok([
      'deploy',
      'p5r',
      '--image',
      'nginx:1.28',
      '--procfile',
      fleet.file('p5r-web-only.Procfile', 'web: nginx -g "daemon off;"\n'),
      '--wait',
    ]);
    expect(out).toMatch(/process type worker removed \(not in the Procfile\): Deployment p5r-worker deleted/);
    expect(await deploymentNames('p5r')).toEqual(['p5r-web']);
    // Replicas set by the formation carried over.
    expect(
      (await fleet.apps.readNamespacedDeployment({ name: 'p5r-web', namespace: 'default' })).spec?.replicas,
    ).toBe(2);
  });
});
