/**
 * `run` end to end: CLI → Redis → worker process → kube-sim, whose container runtime interprets the
 * commands (docs/kube-sim.md, "Container runtime model"), and the output back through the job's
 * Redis stream. The CLI prints the run's lines raw and exits with the container's exit code; bad
 * input creates nothing; `--env` values reach the container through a Secret owned by the Job and
 * never Redis in clear; a worker SIGKILLed mid-run leaves a job the next worker finishes with each
 * line printed once and one Job.
 */
import type * as k8s from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/jobs/keys.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { CLI, startProcess } from '../helpers/processes.ts';
import { until, within } from '../helpers/wait.ts';

let fleet: DeployFleet;

const PROCFILE = 'web: bundle exec puma\nworker: bundle exec sidekiq\n';

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
  await fleet.deployWithRegistry(
    'shop',
    'registry.example.com/shop:1',
    PROCFILE,
    JSON.stringify({ formation: { web: { quantity: 1 }, worker: { quantity: 1 } } }),
  );
  await fleet.ok(['config:set', 'shop', 'GREETING=hello', '--wait']);
});

afterAll(async () => {
  await fleet?.stop();
});

async function runJobs(app: string): Promise<k8s.V1Job[]> {
  const { items } = await fleet.batch.listJobForAllNamespaces({
    labelSelector: `longshore.dev/job=run,app.kubernetes.io/part-of=${app}`,
  });
  return items;
}

async function runJobIds(): Promise<{ id: string; state: string }[]> {
  const jobs = JSON.parse(await fleet.ok(['jobs:list', '--app', 'shop', '--json'])) as {
    id: string;
    type: string;
    state: string;
  }[];
  return jobs.filter((j) => j.type === 'run');
}

/** Keys whose name or content holds `text` (every type longshore writes). */
async function redisKeysHolding(text: string): Promise<string[]> {
  const client = new Redis(fleet.redis.url);
  try {
    const found: string[] = [];
    for (const key of await client.keys('*')) {
      const type = await client.type(key);
      const values: string[] = [key];
      if (type === 'string') values.push((await client.get(key)) ?? '');
      else if (type === 'hash') values.push(...Object.entries(await client.hgetall(key)).flat());
      else if (type === 'list') values.push(...(await client.lrange(key, 0, -1)));
      else if (type === 'set') values.push(...(await client.smembers(key)));
      else if (type === 'zset') values.push(...(await client.zrange(key, 0, -1)));
      else if (type === 'stream')
        values.push(...(await client.xrange(key, '-', '+')).flatMap(([id, fields]) => [id, ...fields]));
      if (values.some((v) => v.includes(text))) found.push(key);
    }
    return found.sort();
  } finally {
    client.disconnect();
  }
}

describe('run', () => {
  it("prints the run's lines raw and exits with its exit code; the Job is the process's pod", async () => {
    const before = (await runJobs('shop')).length;
    const { code, stdout, stderr } = await fleet.cli([
      'run',
      'shop',
      '--',
      'sh',
      '-c',
      'echo hi; printenv GREETING; exit 3',
    ]);
    expect({ code, stdout, stderr }).toEqual({ code: 3, stdout: 'hi\nhello\n', stderr: '' });

    const jobs = await runJobs('shop');
    expect(jobs).toHaveLength(before + 1);
    const job = jobs.find((j) => j.spec?.template.spec?.containers[0]?.args?.includes('-c'))!;
    expect(job.metadata?.name).toMatch(/^shop-run-[0-9a-f]{8}$/);
    expect(job.metadata?.labels).toMatchObject({
      'app.kubernetes.io/managed-by': 'longshore',
      'app.kubernetes.io/part-of': 'shop',
      'longshore.dev/app': 'shop',
      'longshore.dev/job': 'run',
    });
    expect(job.spec).toMatchObject({
      backoffLimit: 0,
      activeDeadlineSeconds: 86_400,
      ttlSecondsAfterFinished: 3600,
    });
    const pod = job.spec!.template.spec!;
    const deployment = await fleet.apps.readNamespacedDeployment({ name: 'shop-web', namespace: 'default' });
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.imagePullSecrets).toEqual(deployment.spec?.template.spec?.imagePullSecrets);
    expect(pod.imagePullSecrets).toEqual([{ name: 'pull-secret-shop' }]);
    expect(pod.containers[0]).toMatchObject({
      image: 'registry.example.com/shop:1',
      args: ['sh', '-c', 'echo hi; printenv GREETING; exit 3'],
      envFrom: [{ secretRef: { name: 'config-shop', optional: true } }],
    });
    expect(pod.containers[0]?.command).toBeUndefined();

    const [run] = await runJobIds();
    const shown = JSON.parse(await fleet.ok(['jobs:show', run!.id, '--json'])) as {
      state: string;
      returnValue: { exitCode: number; jobName: string };
    };
    expect(shown.state).toBe('completed');
    expect(shown.returnValue).toMatchObject({ exitCode: 3, jobName: job.metadata?.name });
  });

  it('a succeeded run exits 0; --process picks the process type', async () => {
    expect(await fleet.cli(['run', 'shop', '--', 'echo', 'ok'])).toEqual({
      code: 0,
      stdout: 'ok\n',
      stderr: '',
    });
    const worker = await fleet.cli(['run', 'shop', '--process', 'worker', '--', 'printenv', 'HOSTNAME']);
    expect(worker.code).toBe(0);
    expect(worker.stdout).toMatch(/^shop-run-[0-9a-f]{8}-\w+\n$/);
  });

  it('--env values reach the container through a Secret the Job owns, never Redis in clear', async () => {
    const secret = 'run-extra-7f3q-value';
    const { code, stdout } = await fleet.cli([
      'run',
      'shop',
      '--env',
      `EXTRA=${secret}`,
      '--',
      'printenv',
      'EXTRA',
    ]);
    expect({ code, stdout }).toEqual({ code: 0, stdout: `${secret}\n` });
    const [run] = await runJobIds();
    const shown = JSON.parse(await fleet.ok(['jobs:show', run!.id, '--json'])) as {
      returnValue: { jobName: string };
    };
    const name = shown.returnValue.jobName;
    const job = await fleet.batch.readNamespacedJob({ name, namespace: 'default' });
    expect(JSON.stringify(job)).not.toContain(secret);
    expect(job.spec?.template.spec?.containers[0]?.envFrom).toEqual([
      { secretRef: { name: 'config-shop', optional: true } },
      { secretRef: { name: `${name}-env` } },
    ]);
    const envSecret = await fleet.core.readNamespacedSecret({ name: `${name}-env`, namespace: 'default' });
    expect(Buffer.from(envSecret.data?.EXTRA ?? '', 'base64').toString()).toBe(secret);
    expect(envSecret.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Job', name, uid: job.metadata?.uid, controller: true }),
    ]);
    // The value is in no Redis key but the run's own stream, which carries what the command
    // printed (here, the value itself); a run that does not print it leaves it nowhere.
    expect(await redisKeysHolding(secret)).toEqual([keys.logStream(run!.id)]);
    const quiet = 'run-quiet-9k2m-value';
    const length = await fleet.cli([
      'run',
      'shop',
      '-e',
      `EXTRA=${quiet}`,
      '--',
      'sh',
      '-c',
      // The shell's ${#EXTRA}: the value's length, not the value.
      `echo \${#EXTRA}`,
    ]);
    expect(length.stdout).toBe(`${quiet.length}\n`);
    expect(await redisKeysHolding(quiet)).toEqual([]);
  });

  it('an image that cannot be pulled exits 1 naming ErrImagePull, and its Job is deleted', async () => {
    await fleet.ok([
      'deploy',
      'broken',
      '--image',
      'registry.example.com/broken:1',
      '--procfile',
      fleet.file('broken.Procfile', 'web: bundle exec puma\n'),
      '--wait',
    ]);
    fleet.sim.settings.unpullableImages = ['registry.example.com/broken:1'];
    try {
      const { code, stdout, stderr } = await fleet.cli(['run', 'broken', '--', 'echo', 'never']);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toMatch(
        /^error: run broken-run-[0-9a-f]{8}: ErrImagePull: .*registry\.example\.com\/broken:1.*\(the Job was deleted\)\n$/,
      );
      await until(async () => (await runJobs('broken')).length === 0, 'the run Job of broken to be gone');
    } finally {
      fleet.sim.settings.unpullableImages = [];
    }
  });

  it('a run past its --timeout exits 1 with DeadlineExceeded', async () => {
    const { code, stderr } = await fleet.cli(['run', 'shop', '--timeout', '1', '--', 'sleep', '30']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^error: run shop-run-[0-9a-f]{8}: DeadlineExceeded: /);
  });

  it('--detach prints the Job name at once; the Job (and its env Secret) are gone after their TTL', async () => {
    const { code, stdout, stderr } = await fleet.cli([
      'run',
      'shop',
      '--detach',
      '--ttl',
      '2',
      '-e',
      'MODE=detached',
      '--',
      'sh',
      '-c',
      'echo $MODE',
    ]);
    expect(code).toBe(0);
    const name = stdout.trim();
    expect(name).toMatch(/^shop-run-[0-9a-f]{8}$/);
    expect(stderr).toContain(`a worker starts Job ${name}`);
    const job = await until(
      () => fleet.batch.readNamespacedJob({ name, namespace: 'default' }),
      'the detached Job to be created',
    );
    expect(job.spec?.ttlSecondsAfterFinished).toBe(2);
    await until(
      async () =>
        (await fleet.batch.readNamespacedJob({ name, namespace: 'default' }).catch(() => undefined)) ===
        undefined,
      'the detached Job to be deleted after its TTL',
      { timeoutMs: 30_000 },
    );
    await until(
      async () =>
        (await fleet.core
          .readNamespacedSecret({ name: `${name}-env`, namespace: 'default' })
          .catch(() => undefined)) === undefined,
      'its env Secret to be garbage-collected',
    );
    const shown = (await runJobIds())[0]!;
    const details = JSON.parse(await fleet.ok(['jobs:show', shown.id, '--json'])) as {
      returnValue: { detached: boolean; jobName: string };
    };
    expect(details.returnValue).toMatchObject({ detached: true, jobName: name });
  });

  it('bad input is refused and creates nothing', async () => {
    await fleet.ok(['domains:add', 'draft', 'draft.example.com', '--wait']);
    const before = (await runJobs('shop')).length + (await runJobs('draft')).length;

    const noCommand = await fleet.cli(['run', 'shop']);
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toContain('give a command to run');

    const badKey = await fleet.cli(['run', 'shop', '-e', '1BAD=x', '--', 'true']);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('env.1BAD');

    const badTimeout = await fleet.cli(['run', 'shop', '--timeout', '0', '--', 'true']);
    expect(badTimeout.code).toBe(2);
    expect(badTimeout.stderr).toContain('timeoutSeconds: must be at least 1 second');

    const unknownType = await fleet.cli(['run', 'shop', '--process', 'cron', '--', 'true']);
    expect(unknownType.code).toBe(2);
    expect(unknownType.stderr).toContain('unknown process type "cron" (app shop has: web, worker)');

    // The CLI knows draft has no process type yet (its status projection); the worker knows it has
    // no deployed revision, which a raw enqueue reaches.
    const undeployed = await fleet.cli(['run', 'draft', '--', 'true']);
    expect(undeployed.code).toBe(2);
    expect(undeployed.stderr).toContain('app draft has no process types yet: deploy it first');
    const raw = await fleet.cli([
      'jobs:enqueue',
      'run',
      '--payload',
      JSON.stringify({ app: 'draft', command: ['true'] }),
      '--wait',
    ]);
    expect(raw.code).toBe(1);
    expect(raw.stderr).toContain('app draft has no deployed revision: deploy it first');

    const unknownApp = await fleet.cli(['run', 'ghost', '--', 'true']);
    expect(unknownApp.code).toBe(1);
    expect(unknownApp.stderr).toContain('app ghost does not exist');

    expect((await runJobs('shop')).length + (await runJobs('draft')).length).toBe(before);
  });

  it('Ctrl-C stops following (exit 130); the run goes on in the cluster and the job completes', async () => {
    const cli = startProcess(
      CLI,
      ['run', 'shop', '--', 'sh', '-c', 'echo started; sleep 3; echo done'],
      fleet.env,
    );
    await cli.waitForLine(/^started$/, 30_000);
    cli.kill('SIGINT');
    const exit = await within(cli.exited, 15_000, 'the CLI to exit on SIGINT');
    expect(exit.code).toBe(130);
    const note = cli.lines.find((l) => l.startsWith('stopped following'));
    expect(note).toMatch(/^stopped following; the run goes on in the cluster as Job shop-run-[0-9a-f]{8} /);
    expect(cli.lines).not.toContain('done');
    const [run] = await runJobIds();
    const ended = await until(async () => {
      const shown = JSON.parse(await fleet.ok(['jobs:show', run!.id, '--json'])) as {
        state: string;
        returnValue?: { summary: string; jobName: string; running: boolean };
      };
      return shown.state === 'completed' && shown.returnValue;
    }, 'the run job to complete once its reader left');
    expect(ended.summary).toMatch(
      /^relay ended: stopped by its reader; Job default\/shop-run-\w+ goes on in the cluster/,
    );
    expect(ended.running).toBe(true);
    await until(
      async () =>
        (await fleet.batch.readNamespacedJob({ name: ended.jobName, namespace: 'default' })).status
          ?.succeeded === 1,
      'the unfollowed run to finish by itself',
    );
  });

  it.each([
    ['after its container ended', 2],
    ['while its container still runs', 8],
  ])(
    'a worker SIGKILLed mid-run, the next one taking over %s: each line printed once, one Job',
    async (_when, sleep) => {
      const before = (await runJobs('shop')).length;
      const [first] = fleet.workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
      const cli = startProcess(
        CLI,
        [
          'run',
          'shop',
          '--',
          'sh',
          '-c',
          `echo before; echo also-before; sleep ${sleep}; echo after; exit 5`,
        ],
        fleet.env,
      );
      await cli.waitForLine(/^also-before$/, 30_000);
      first!.kill('SIGKILL');
      await first!.exited;
      await fleet.startWorker();
      const exit = await within(cli.exited, 60_000, 'the run to end after its worker was killed');
      expect(exit.code).toBe(5);
      expect(cli.lines).toEqual(['before', 'also-before', 'after']);
      expect((await runJobs('shop')).length).toBe(before + 1);
      const [run] = await runJobIds();
      const shown = JSON.parse(await fleet.ok(['jobs:show', run!.id, '--json'])) as {
        attempts: unknown[];
        returnValue: { exitCode: number; lines: number };
      };
      expect(shown.returnValue).toMatchObject({ exitCode: 5, lines: 3 });
      expect(shown.attempts.length).toBeGreaterThanOrEqual(2);
    },
  );
});
