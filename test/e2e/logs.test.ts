/**
 * `logs` end to end: CLI → Redis → worker process → kube-sim's pod log endpoint, and the lines
 * back through the job's Redis stream. kube-sim's pods print nothing by themselves: the test gives
 * each pod its lines through `sim.settings.podLogs` (docs/kube-sim.md, "Pod logs"), and appends to
 * them for the follow.
 */
import type * as k8s from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_INSTANCE } from '../../charts/labels.ts';
import { keys } from '../../src/jobs/keys.ts';
import { LOG_STREAM_TTL_SECONDS } from '../../src/jobs/log-stream.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { CLI, startProcess } from '../helpers/processes.ts';
import { until, within } from '../helpers/wait.ts';

let fleet: DeployFleet;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
  await fleet.ok([
    'deploy',
    'shop',
    '--image',
    'registry.example.com/shop:1',
    '--procfile',
    fleet.file('Procfile', 'web: bundle exec puma\nworker: bundle exec sidekiq\n'),
    '--app-json',
    fleet.file('app.json', JSON.stringify({ formation: { web: { quantity: 2 }, worker: { quantity: 1 } } })),
    '--wait',
  ]);
});

afterAll(async () => {
  await fleet?.stop();
});

/** The app's pods of one process, oldest first (ties by name): the documented numbering. */
async function podsOf(process: string): Promise<k8s.V1Pod[]> {
  const { items } = await fleet.core.listNamespacedPod({
    namespace: 'default',
    labelSelector: `app.kubernetes.io/part-of=shop,${LABEL_INSTANCE}=shop-${process}`,
  });
  return items
    .filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp)
    .sort(
      (a, b) =>
        new Date(a.metadata!.creationTimestamp!).getTime() -
          new Date(b.metadata!.creationTimestamp!).getTime() ||
        a.metadata!.name!.localeCompare(b.metadata!.name!),
    );
}

/** Gives every pod of the app three lines naming it; returns the expected prefix of each pod. */
async function giveLines(): Promise<Map<string, string>> {
  const prefixes = new Map<string, string>();
  for (const process of ['web', 'worker']) {
    const pods = await podsOf(process);
    pods.forEach((pod, i) => {
      const name = pod.metadata!.name!;
      fleet.sim.settings.podLogs.set(`default/${name}`, [`${name} one`, `${name} two`, `${name} three`]);
      prefixes.set(name, `${process}.${i + 1}`);
    });
  }
  return prefixes;
}

async function jobsOfShop(): Promise<{ id: string; type: string; state: string }[]> {
  return JSON.parse(await fleet.ok(['jobs:list', '--app', 'shop', '--json'])) as {
    id: string;
    type: string;
    state: string;
  }[];
}

describe('logs', () => {
  it('prints the last lines of every pod, prefixed {process}.{n}', async () => {
    const prefixes = await giveLines();
    expect([...prefixes.values()].sort()).toEqual(['web.1', 'web.2', 'worker.1']);
    const { code, stdout, stderr } = await fleet.cli(['logs', 'shop', '--tail', '2']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const expected = [...prefixes.entries()]
      .sort((a, b) => a[1].localeCompare(b[1]))
      .flatMap(([name, prefix]) => [`${prefix} | ${name} two`, `${prefix} | ${name} three`]);
    expect(stdout.trimEnd().split('\n')).toEqual(expected);

    // The lines went through the job's own stream, which expires (the job record stays 7 days).
    const job = (await jobsOfShop()).find((j) => j.type === 'logs')!;
    const redis = new Redis(fleet.redis.url);
    try {
      const entries = await redis.xrange(keys.logStream(job.id), '-', '+');
      expect(entries).toHaveLength(expected.length + 1);
      expect(entries.at(-1)?.[1]).toEqual(['end', '6 lines of 3 pods']);
      const ttl = await redis.ttl(keys.logStream(job.id));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(LOG_STREAM_TTL_SECONDS);
    } finally {
      redis.disconnect();
    }
  });

  it('--process prints only that process', async () => {
    const prefixes = await giveLines();
    const [worker] = [...prefixes.entries()].find(([, p]) => p === 'worker.1')!;
    const out = await fleet.ok(['logs', 'shop', '--process', 'worker', '--tail', '1']);
    expect(out.trimEnd().split('\n')).toEqual([`worker.1 | ${worker} three`]);
  });

  it('-f prints lines appended after it started; Ctrl-C ends the CLI and the job', async () => {
    const prefixes = await giveLines();
    const [web2] = [...prefixes.entries()].find(([, p]) => p === 'web.2')!;
    const cli = startProcess(CLI, ['logs', 'shop', '-f', '--tail', '1', '--process', 'web'], fleet.env);
    await cli.waitForLine(new RegExp(`^web\\.2 \\| ${web2} three$`), 30_000);
    fleet.sim.settings.podLogs.get(`default/${web2}`)!.push('appended while following');
    await cli.waitForLine(/^web\.2 \| appended while following$/, 30_000);
    const job = await until(
      async () => (await jobsOfShop()).find((j) => j.type === 'logs' && j.state === 'active'),
      'the follow job to be active',
    );

    cli.kill('SIGINT');
    const exit = await within(cli.exited, 15_000, 'the CLI to exit on SIGINT');
    expect(exit.code).toBe(0);
    expect(cli.lines.filter((l) => l.startsWith('worker.'))).toEqual([]);
    const ended = await until(
      async () => (await jobsOfShop()).find((j) => j.id === job.id && j.state !== 'active'),
      'the follow job to end',
    );
    expect(ended.state).toBe('completed');
    const shown = JSON.parse(await fleet.ok(['jobs:show', job.id, '--json'])) as {
      returnValue: { summary: string };
    };
    expect(shown.returnValue.summary).toBe('follow ended: stopped by its reader');
  });

  it('-f ends by itself when the reader goes away without a word (its heartbeat goes stale)', async () => {
    await giveLines();
    const before = new Set((await jobsOfShop()).map((j) => j.id));
    const cli = startProcess(CLI, ['logs', 'shop', '-f', '--tail', '1'], fleet.env);
    await cli.waitForLine(/^worker\.1 \| /, 30_000);
    const job = await until(
      async () => (await jobsOfShop()).find((j) => j.type === 'logs' && !before.has(j.id)),
      'the follow job to be listed',
    );
    cli.kill('SIGKILL');
    await cli.exited;
    // The heartbeat lives LOG_READER_TIMEOUT_MS (15 s) after the CLI's last refresh.
    await until(
      async () => (await jobsOfShop()).find((j) => j.id === job.id && j.state === 'completed'),
      'the orphaned follow to end',
      { timeoutMs: 40_000, intervalMs: 500 },
    );
    const shown = JSON.parse(await fleet.ok(['jobs:show', job.id, '--json'])) as {
      returnValue: { summary: string };
    };
    expect(shown.returnValue.summary).toBe('follow ended: the reader went away (no heartbeat for 15 s)');
  });

  it('an unknown app fails with exit 1; -f ends when its pods go; an app without running pods says so', async () => {
    const unknown = await fleet.cli(['logs', 'nosuchapp']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('app nosuchapp does not exist');

    await giveLines();
    const follow = startProcess(CLI, ['logs', 'shop', '-f', '--process', 'worker'], fleet.env);
    await follow.waitForLine(/^worker\.1 \| .* three$/, 30_000);
    await fleet.ok(['ps:scale', 'shop', 'worker=0', '--wait']);
    await until(async () => (await podsOf('worker')).length === 0, 'the worker pods to go');
    const exit = await within(follow.exited, 30_000, 'the follow to end with its pods');
    expect(exit.code).toBe(0);
    expect(follow.lines).toContain('follow ended: the logs of every pod ended');

    const none = await fleet.cli(['logs', 'shop', '--process', 'worker']);
    expect(none.code).toBe(0);
    expect(none.stdout.trim()).toBe('shop has no running pods of process worker');
  });
});
