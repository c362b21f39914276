/**
 * CronJobs fire on their own schedule (controllers/cronjob-controller.ts, after upstream's
 * cronjob_controllerv2.go and utils.go), on the CronJob clock sped up by `timeScale` (60: one
 * simulated minute per real second), through the real @kubernetes/client-node and the
 * `longshore sim` flags.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, startProcess } from '../../helpers/processes.ts';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';
import { stays, until } from '../../helpers/wait.ts';

const MERGE = k8s.setHeaderOptions('Content-Type', 'application/merge-patch+json');
const SCHEDULED = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

describe('kube-sim CronJob schedules', () => {
  let c: SimClients;
  const ns = 'schedules';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { timeScale: 60, jobRunMs: 50, podReadyDelayMs: 10 } });
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  const cronJob = (name: string, spec: Partial<k8s.V1CronJobSpec> = {}, command?: string[]) =>
    c.batch.createNamespacedCronJob({
      namespace: ns,
      body: {
        metadata: { name },
        spec: {
          schedule: '*/1 * * * *',
          jobTemplate: {
            metadata: { labels: { cron: name } },
            spec: {
              template: {
                spec: {
                  restartPolicy: 'Never',
                  containers: [{ name: 'c', image: 'busybox:1.36', ...(command ? { command } : {}) }],
                },
              },
            },
          },
          ...spec,
        },
      },
    });
  const jobsOf = async (name: string) =>
    (await c.batch.listNamespacedJob({ namespace: ns, labelSelector: `cron=${name}` })).items;
  const readCronJob = (name: string) => c.batch.readNamespacedCronJob({ namespace: ns, name });
  const events = async (name: string) =>
    (await c.core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${name}` })).items;
  // A container that outlives every test: the runtime runs `sleep` for that long.
  const LONG = ['sleep', '3600'];

  it('creates Jobs at the scheduled times, named after the scheduled minute', async () => {
    const cj = await cronJob('every', { timeZone: 'Etc/UTC' });
    const jobs = await until(async () => {
      const list = await jobsOf('every');
      return list.length >= 2 && list;
    }, 'two scheduled runs');
    const minutes = jobs.map((j) => {
      const m = /^every-(\d+)$/.exec(j.metadata!.name!);
      expect(m).not.toBeNull();
      const minute = Number(m![1]);
      // The scheduled-timestamp annotation is the scheduled time, on a whole minute.
      expect(Date.parse(j.metadata!.annotations![SCHEDULED]!)).toBe(minute * 60_000);
      expect(j.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'CronJob', uid: cj.metadata?.uid });
      return minute;
    });
    expect(new Set(minutes).size).toBe(minutes.length);
    await until(async () => {
      const status = (await readCronJob('every')).status;
      const newest = Math.max(...(await jobsOf('every')).map((j) => Number(j.metadata!.name!.slice(6))));
      return status?.lastScheduleTime?.getTime() === newest * 60_000;
    }, 'lastScheduleTime at the newest run');
    const reasons = (await events('every')).map((e) => e.reason);
    expect(reasons).toContain('SuccessfulCreate');
    await until(
      async () => (await readCronJob('every')).status?.lastSuccessfulTime !== undefined,
      'a finished run recorded as lastSuccessfulTime',
    );
  });

  it('starts nothing while suspended', async () => {
    await cronJob('pausable');
    await until(async () => (await jobsOf('pausable')).length >= 1, 'a first run');
    await c.batch.patchNamespacedCronJob(
      { namespace: ns, name: 'pausable', body: { spec: { suspend: true } } },
      MERGE,
    );
    const count = (await jobsOf('pausable')).length;
    // Three simulated minutes with no new run.
    await stays(async () => (await jobsOf('pausable')).length === count, 3000, 'no run while suspended');
    await c.batch.patchNamespacedCronJob(
      { namespace: ns, name: 'pausable', body: { spec: { suspend: false } } },
      MERGE,
    );
    await until(async () => (await jobsOf('pausable')).length > count, 'runs again once resumed');
  });

  it('Forbid does not start a run while the previous one is active', async () => {
    await cronJob('single', { concurrencyPolicy: 'Forbid' }, LONG);
    await until(async () => (await jobsOf('single')).length === 1, 'the first run');
    const event = await until(
      async () => (await events('single')).find((e) => e.reason === 'JobAlreadyActive'),
      'a skipped run',
    );
    expect(event.message).toBe(
      'Not starting job because prior execution is running and concurrency policy is Forbid',
    );
    await stays(async () => (await jobsOf('single')).length === 1, 2500, 'one run only under Forbid');
  });

  it('Replace deletes the running Job and starts the new one', async () => {
    await cronJob('latest', { concurrencyPolicy: 'Replace' }, LONG);
    const [first] = await until(async () => {
      const list = await jobsOf('latest');
      return list.length >= 1 && list;
    }, 'the first run');
    const firstName = first!.metadata!.name!;
    await until(
      async () =>
        (await statusOf(c.batch.readNamespacedJob({ namespace: ns, name: firstName }))).code === 404,
      'the first run deleted by the next',
    );
    const status = await until(async () => {
      const s = (await readCronJob('latest')).status;
      return s?.active?.length === 1 && s.active[0]!.name !== firstName && s;
    }, 'the newer run active');
    expect(Number(status.active![0]!.name!.slice('latest-'.length))).toBeGreaterThan(
      Number(firstName.slice('latest-'.length)),
    );
    expect((await events('latest')).map((e) => e.reason)).toContain('SuccessfulDelete');
  });

  it('skips activations older than startingDeadlineSeconds', async () => {
    // A zero window: by the time the controller looks, every activation is already too old.
    await cronJob('strict', { startingDeadlineSeconds: 0 });
    await stays(async () => (await jobsOf('strict')).length === 0, 3000, 'no run past its deadline');
    expect((await readCronJob('strict')).status?.lastScheduleTime).toBeUndefined();
    // The same schedule with a minute's window runs.
    await c.batch.patchNamespacedCronJob(
      { namespace: ns, name: 'strict', body: { spec: { startingDeadlineSeconds: 60 } } },
      MERGE,
    );
    await until(async () => (await jobsOf('strict')).length > 0, 'a run within the window');
  });
});

describe('longshore sim --time-scale', () => {
  it('takes a positive number', async () => {
    const proc = startProcess(CLI, ['sim', '--time-scale', '120'], {});
    try {
      const line = await proc.waitForLine(/^kube-sim listening on /);
      const url = line.replace('kube-sim listening on ', '');
      expect(await (await fetch(`${url}/__sim/settings`)).json()).toMatchObject({ timeScale: 120 });
    } finally {
      proc.kill('SIGTERM');
      await proc.exited;
    }
  });

  it('refuses zero, negative and non-numbers', async () => {
    for (const value of ['0', '-5']) {
      const run = await runCli(['sim', '--time-scale', value], {});
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('timeScale must be a positive number');
    }
    const run = await runCli(['sim', '--time-scale', 'fast'], {});
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--time-scale must be a number, got "fast"');
    const help = await runCli(['sim', '--help'], {});
    expect(help.stdout).toContain('--time-scale <value>');
  });
});
