/**
 * kube-sim's container runtime model (docs/kube-sim.md, "Container runtime model") through the
 * real client-node and kubectl: a container runs its command; its exit ends a Job Pod with that
 * status (and the Job Complete or Failed), or restarts a Deployment's container with the kubelet's
 * crash-loop back-off; what it prints is the Pod's log, with follow, tailLines, sinceSeconds,
 * sinceTime, timestamps, limitBytes and previous as upstream serves them. Settings that tests set
 * from outside the process go through the admin API and `longshore sim` flags.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim } from '../../../infra/kube-sim/sim.ts';
import { ensureKubeTools } from '../../../infra/kube-sim/tools.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { CLI, startProcess } from '../../helpers/processes.ts';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';
import { until, within } from '../../helpers/wait.ts';

const NS = 'runtime';
const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z /;

let c: SimClients;
let cli: KubeCli;

beforeAll(async () => {
  // A short crash-loop back-off (upstream 10 s doubling to 5 min) keeps the restarts quick.
  c = await startSimWithClients({
    settings: { podReadyDelayMs: 10, restartBackOffMs: 300, restartBackOffMaxMs: 2_000 },
  });
  cli = await kubeCli(c.sim);
  await c.core.createNamespace({ body: { metadata: { name: NS } } });
  await c.core.createNamespacedSecret({
    namespace: NS,
    body: { metadata: { name: 'config-shop' }, stringData: { GREETING: 'hello from the config' } },
  });
});
afterAll(() => c.sim.stop());

function job(
  name: string,
  command: string[],
  spec: Partial<k8s.V1JobSpec> = {},
  restartPolicy = 'Never',
  container: Partial<k8s.V1Container> = {},
): k8s.V1Job {
  return {
    metadata: { name },
    spec: {
      backoffLimit: 0,
      ...spec,
      template: {
        spec: {
          restartPolicy,
          containers: [
            {
              name: 'main',
              image: 'registry.example/shop:1',
              command,
              envFrom: [{ secretRef: { name: 'config-shop' } }],
              ...container,
            },
          ],
        },
      },
    },
  };
}

async function jobPod(name: string): Promise<k8s.V1Pod> {
  return until(async () => {
    const pods = (await c.core.listNamespacedPod({ namespace: NS, labelSelector: `job-name=${name}` })).items;
    return pods[0];
  }, `a Pod of Job ${name}`);
}

async function jobCondition(name: string): Promise<k8s.V1JobCondition> {
  return until(async () => {
    const status = (await c.batch.readNamespacedJob({ namespace: NS, name })).status;
    return status?.conditions?.find(
      (x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True',
    );
  }, `Job ${name} to finish`);
}

const readPod = (name: string) => c.core.readNamespacedPod({ namespace: NS, name });

async function podWith(
  name: string,
  containers: k8s.V1Container[],
  restartPolicy = 'Always',
): Promise<k8s.V1Pod> {
  await c.core.createNamespacedPod({
    namespace: NS,
    body: { metadata: { name }, spec: { restartPolicy, containers } },
  });
  return until(async () => {
    const pod = await readPod(name);
    return pod.status?.phase === 'Running' && pod;
  }, `Pod ${name} Running`);
}

describe('a Job’s container runs its command', () => {
  it('exit 3 fails the Job; the Pod records exit code 3 and its log is what the command printed', async () => {
    await c.batch.createNamespacedJob({
      namespace: NS,
      body: job('fails', ['sh', '-c', 'echo hi; printenv GREETING; exit 3']),
    });
    const condition = await jobCondition('fails');
    expect(condition).toMatchObject({ type: 'Failed', reason: 'BackoffLimitExceeded' });
    const pod = await jobPod('fails');
    expect(pod.status?.phase).toBe('Failed');
    expect(pod.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 3,
      reason: 'Error',
    });
    expect(await c.core.readNamespacedPodLog({ namespace: NS, name: pod.metadata!.name! })).toBe(
      'hi\nhello from the config\n',
    );
  });

  it('exit 0 completes the Job (reason Completed)', async () => {
    await c.batch.createNamespacedJob({ namespace: NS, body: job('succeeds', ['sh', '-c', 'echo done']) });
    expect(await jobCondition('succeeds')).toMatchObject({ type: 'Complete' });
    const pod = await jobPod('succeeds');
    expect(pod.status?.phase).toBe('Succeeded');
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({
      state: { terminated: { exitCode: 0, reason: 'Completed' } },
      restartCount: 0,
      ready: false,
    });
    expect(await c.core.readNamespacedPodLog({ namespace: NS, name: pod.metadata!.name! })).toBe('done\n');
  });

  it('with restartPolicy OnFailure a failing container restarts in place until backoffLimit', async () => {
    await c.batch.createNamespacedJob({
      namespace: NS,
      body: job('retries', ['sh', '-c', 'echo attempt; exit 2'], { backoffLimit: 2 }, 'OnFailure'),
    });
    expect(await jobCondition('retries')).toMatchObject({ type: 'Failed', reason: 'BackoffLimitExceeded' });
  });

  it('a command kube-sim cannot run keeps today’s rule: it ends after jobRunMs, failing for failingJobImages', async () => {
    c.sim.settings.failingJobImages = ['registry.example/broken:*'];
    try {
      await c.batch.createNamespacedJob({
        namespace: NS,
        body: {
          metadata: { name: 'migrate' },
          spec: {
            backoffLimit: 0,
            template: {
              spec: {
                restartPolicy: 'Never',
                containers: [
                  { name: 'main', image: 'registry.example/broken:1', args: ['rake', 'db:migrate'] },
                ],
              },
            },
          },
        },
      });
      expect(await jobCondition('migrate')).toMatchObject({ type: 'Failed' });
      const pod = await jobPod('migrate');
      expect(pod.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
        exitCode: 1,
        reason: 'Error',
      });
    } finally {
      c.sim.settings.failingJobImages = [];
    }
  });
});

describe('a Deployment’s container that exits', () => {
  it('restarts with the crash-loop back-off: CrashLoopBackOff between restarts, restartCount, lastState, previous log', async () => {
    await c.apps.createNamespacedDeployment({
      namespace: NS,
      body: {
        metadata: { name: 'crashy' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'crashy' } },
          template: {
            metadata: { labels: { app: 'crashy' } },
            spec: {
              containers: [
                { name: 'web', image: 'registry.example/shop:1', command: ['sh', '-c', 'echo boom; exit 1'] },
              ],
            },
          },
        },
      },
    });
    const looping = await until(async () => {
      const pod = (await c.core.listNamespacedPod({ namespace: NS, labelSelector: 'app=crashy' })).items[0];
      const status = pod?.status?.containerStatuses?.[0];
      return status?.state?.waiting?.reason === 'CrashLoopBackOff' && (status.restartCount ?? 0) >= 2 && pod;
    }, 'the container in CrashLoopBackOff after two restarts');
    const name = looping.metadata!.name!;
    const status = looping.status!.containerStatuses![0]!;
    expect(status.state!.waiting!.message).toMatch(
      new RegExp(
        `^back-off (300ms|600ms|1\\.2s|2s) restarting failed container=web pod=${name}_${NS}\\(${looping.metadata!.uid}\\)$`,
      ),
    );
    expect(status.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(status.lastState?.terminated?.containerID).toMatch(/^containerd:\/\//);
    expect(status.ready).toBe(false);
    expect(looping.status?.phase).toBe('Running');
    expect(looping.status?.conditions?.find((x) => x.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotReady',
    });

    const grown = await until(async () => {
      const pod = await readPod(name);
      const count = pod.status?.containerStatuses?.[0]?.restartCount ?? 0;
      return count > status.restartCount! && count;
    }, 'restartCount to keep growing');
    expect(grown).toBeGreaterThan(status.restartCount!);
    expect(await c.core.readNamespacedPodLog({ namespace: NS, name, previous: true })).toBe('boom\n');
    // While it waits to restart, the log is the last instance's.
    const current = await c.core.readNamespacedPodLog({ namespace: NS, name });
    expect(['boom\n', '']).toContain(current);
    const deployment = await c.apps.readNamespacedDeployment({ namespace: NS, name: 'crashy' });
    expect(deployment.status?.availableReplicas ?? 0).toBe(0);

    const previous = await cli.kubectl(['logs', name, '-n', NS, '--previous']);
    expect(previous).toMatchObject({ code: 0, stdout: 'boom\n' });
    await c.apps.deleteNamespacedDeployment({ namespace: NS, name: 'crashy' });
  });

  it('a script written for a real image (programs kube-sim does not have) runs as a server, not a crash loop', async () => {
    // examples/hello's web process.
    const script = `sed -i "s/listen  *80;/listen \${PORT:-5000};/" /etc/nginx/conf.d/default.conf && exec nginx -g "daemon off;"`;
    const pod = await podWith('hello-web', [
      { name: 'web', image: 'nginx:1.27', args: ['sh', '-c', script] },
    ]);
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({ ready: true, restartCount: 0 });
    expect(c.sim.runtime.running(pod.metadata!.uid!, 'web')?.process.running).toBe(true);
  });

  it('a server command (nginx) keeps running and stays ready; previous has nothing to show', async () => {
    const pod = await podWith('server', [{ name: 'nginx', image: 'nginx:1.27' }]);
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({
      ready: true,
      restartCount: 0,
      state: { running: {} },
    });
    expect(
      await statusOf(c.core.readNamespacedPodLog({ namespace: NS, name: 'server', previous: true })),
    ).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'previous terminated container "nginx" in pod "server" not found',
    });
    expect(await c.core.readNamespacedPodLog({ namespace: NS, name: 'server' })).toBe('');
  });
});

describe('pod logs from the container’s output', () => {
  let lines: { at: Date; text: string }[];

  beforeAll(async () => {
    await podWith('talker', [
      {
        name: 'app',
        image: 'busybox:1.36',
        command: ['sh', '-c', 'echo one; echo two >&2; echo three; sleep 0.4; echo four; sleep infinity'],
      },
    ]);
    const stamped = await until(async () => {
      const text = await c.core.readNamespacedPodLog({ namespace: NS, name: 'talker', timestamps: true });
      return text.endsWith(' four\n') && text;
    }, 'the fourth line');
    lines = stamped
      .trimEnd()
      .split('\n')
      .map((l) => ({ at: new Date(l.slice(0, l.indexOf(' '))), text: l.slice(l.indexOf(' ') + 1) }));
    for (const line of stamped.trimEnd().split('\n')) expect(line).toMatch(STAMP);
  });

  const log = (options: Record<string, unknown> = {}) =>
    c.core.readNamespacedPodLog({ namespace: NS, name: 'talker', ...options });

  it('has stdout and stderr in order, each line stamped when it was written', () => {
    expect(lines.map((l) => l.text)).toEqual(['one', 'two', 'three', 'four']);
    expect(lines[3]!.at.getTime() - lines[2]!.at.getTime()).toBeGreaterThanOrEqual(300);
  });

  it('tailLines, limitBytes, sinceSeconds and sinceTime select as the kubelet does', async () => {
    expect(await log()).toBe('one\ntwo\nthree\nfour\n');
    expect(await log({ tailLines: 2 })).toBe('three\nfour\n');
    expect(await log({ tailLines: 0 })).toBe('');
    expect(await log({ limitBytes: 6 })).toBe('one\ntw');
    expect(await log({ sinceSeconds: 3600 })).toBe('one\ntwo\nthree\nfour\n');
    const sinceTime = lines[3]!.at.toISOString();
    const response = await fetch(
      `${c.sim.url}/api/v1/namespaces/${NS}/pods/talker/log?sinceTime=${sinceTime}`,
    );
    expect(await response.text()).toBe('four\n');
    const kubectl = await cli.kubectl([
      'logs',
      'talker',
      '-n',
      NS,
      `--since-time=${sinceTime}`,
      '--timestamps',
    ]);
    expect(kubectl.stderr).toBe('');
    // kubectl sends sinceTime as a metav1.Time: whole seconds.
    const second = Math.floor(lines[3]!.at.getTime() / 1000) * 1000;
    expect(
      kubectl.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(STAMP, '')),
    ).toEqual(lines.filter((l) => l.at.getTime() >= second).map((l) => l.text));
    expect((await cli.kubectl(['logs', 'talker', '-n', NS, '--tail=1'])).stdout).toBe('four\n');
  });

  it('refuses bad options with upstream’s messages', async () => {
    expect(await statusOf(log({ sinceSeconds: 0 }))).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'PodLogOptions "talker" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0',
    });
    const both = await fetch(
      `${c.sim.url}/api/v1/namespaces/${NS}/pods/talker/log?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z`,
    );
    expect(both.status).toBe(422);
    expect(((await both.json()) as { message: string }).message).toBe(
      'PodLogOptions "talker" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
    );
    const badTime = await fetch(`${c.sim.url}/api/v1/namespaces/${NS}/pods/talker/log?sinceTime=yesterday`);
    expect(badTime.status).toBe(400);
  });

  it('names the containers when a Pod has several and none is chosen', async () => {
    await podWith('pair', [
      { name: 'a', image: 'busybox:1.36', command: ['sh', '-c', 'echo from a; sleep infinity'] },
      { name: 'b', image: 'busybox:1.36', command: ['sh', '-c', 'echo from b; sleep infinity'] },
    ]);
    expect(await statusOf(c.core.readNamespacedPodLog({ namespace: NS, name: 'pair' }))).toMatchObject({
      code: 400,
      message: 'a container name must be specified for pod pair, choose one of: [a b]',
    });
    await until(
      async () =>
        (await c.core.readNamespacedPodLog({ namespace: NS, name: 'pair', container: 'b' })) === 'from b\n',
      'container b’s line',
    );
  });

  it('follow streams lines as they come and ends when the container exits; with limitBytes it ends at the limit', async () => {
    await podWith(
      'stream',
      [
        {
          name: 'app',
          image: 'busybox:1.36',
          // The test feeds the container's stdin: each line comes when the test sends it.
          command: ['sh', '-c', 'echo start; read line; echo "$line"; echo end'],
          stdin: true,
        },
      ],
      'Never',
    );
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    const ended = new Promise<void>((resolve) => out.on('end', () => resolve()));
    await new k8s.Log(c.kc).log(NS, 'stream', 'app', out, { follow: true, timestamps: true });
    await until(() => /^\S+ start\n$/.test(text), 'the first line');
    const pod = await readPod('stream');
    expect(pod.status?.phase).toBe('Running');
    c.sim.runtime.running(pod.metadata!.uid!, 'app')!.process.write('middle\n');
    await within(ended, 10_000, 'the follow to end with the container');
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(STAMP, '')),
    ).toEqual(['start', 'middle', 'end']);

    const limited = await fetch(
      `${c.sim.url}/api/v1/namespaces/${NS}/pods/talker/log?follow=true&limitBytes=9`,
    );
    expect(await within(limited.text(), 10_000, 'a follow with limitBytes to end at the limit')).toBe(
      'one\ntwo\nt',
    );
  });
});

describe('kubectl logs -f', () => {
  it('prints a Job Pod’s lines as they come and exits when the container ends', async () => {
    await c.batch.createNamespacedJob({
      namespace: NS,
      // Its stdin is the test's: the second line comes when the test sends it.
      body: job(
        'tail',
        ['sh', '-c', 'echo first; read line; echo "$line"; sleep 0.2; echo third'],
        {},
        'Never',
        {
          stdin: true,
        },
      ),
    });
    const pod = await until(async () => {
      const p = await jobPod('tail');
      return p.status?.phase === 'Running' && p;
    }, 'the Job’s Pod Running');
    const tools = await ensureKubeTools();
    const child = spawn(tools.kubectl, ['logs', '-f', pod.metadata!.name!, '-n', NS], {
      env: { ...process.env, KUBECONFIG: cli.kubeconfig, HOME: cli.dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    try {
      await until(() => stdout === 'first\n', 'kubectl to print the first line', { timeoutMs: 15_000 });
      // Printed while the command still runs: the second line is not written yet.
      expect((await readPod(pod.metadata!.name!)).status?.phase).toBe('Running');
      expect(child.exitCode).toBeNull();
      c.sim.runtime.running(pod.metadata!.uid!, 'main')!.process.write('second\n');
      const code = await within(exited, 20_000, 'kubectl logs -f to exit with the container');
      expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'first\nsecond\nthird\n', stderr: '' });
    } finally {
      child.kill('SIGKILL');
    }
    expect(await jobCondition('tail')).toMatchObject({ type: 'Complete' });
  });
});

describe('processes', () => {
  it('an exec runs in a running container with its environment; deleting the Pod kills its processes', async () => {
    const pod = await podWith('sleeper', [
      {
        name: 'app',
        image: 'busybox:1.36',
        command: ['sleep', 'infinity'],
        env: [{ name: 'WHO', value: 'the sleeper' }],
      },
    ]);
    const exec = c.sim.runtime.exec(pod.metadata!.uid!, 'app', [
      'sh',
      '-c',
      'printenv WHO; hostname; echo $KUBERNETES_SERVICE_HOST',
    ]);
    expect(exec).toBeDefined();
    let text = '';
    exec!.onOutput((_s, chunk) => {
      text += chunk.toString('utf8');
    });
    expect(await exec!.exited).toEqual({ exitCode: 0 });
    expect(text).toBe('the sleeper\nsleeper\n10.96.0.1\n');

    const missing = c.sim.runtime.exec(pod.metadata!.uid!, 'app', ['rails', 'console'])!;
    let err = '';
    missing.onOutput((stream, chunk) => {
      if (stream === 'stderr') err += chunk.toString('utf8');
    });
    expect(await missing.exited).toEqual({ exitCode: 127 });
    expect(err).toBe('exec: "rails": executable file not found in $PATH\n');

    const before = c.sim.runtime.processCount;
    await c.core.deleteNamespacedPod({ namespace: NS, name: 'sleeper' });
    await until(() => c.sim.runtime.processCount === before - 1, 'the Pod’s process to be gone');
    // The Pod is Terminating until the kubelet has seen its container stop and deleted it; then
    // the runtime forgets it.
    await until(
      () => c.sim.runtime.container(pod.metadata!.uid!, 'app') === undefined,
      'the runtime to forget the deleted Pod',
    );
  });

  it('stop() leaves no process running', async () => {
    const sim = await startSim({ settings: { podReadyDelayMs: 10 }, onControllerError: () => undefined });
    const kc = new k8s.KubeConfig();
    kc.loadFromString(sim.kubeconfig());
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'forever' },
        spec: { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] },
      },
    });
    await until(async () => sim.runtime.processCount === 1, 'the container running');
    await sim.stop();
    expect(sim.runtime.processCount).toBe(0);
  });
});

describe('settings from outside the process', () => {
  const admin = (method: string, body?: unknown) =>
    fetch(`${c.sim.url}/__sim/settings`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  it('POST /__sim/settings sets unpullable and failing images; bad input is refused and changes nothing', async () => {
    const set = await admin('POST', {
      unpullableImages: ['registry.example/gone*'],
      failingJobImages: ['x:1'],
    });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({
      unpullableImages: ['registry.example/gone*'],
      failingJobImages: ['x:1'],
    });
    try {
      await c.core.createNamespacedPod({
        namespace: NS,
        body: {
          metadata: { name: 'unpullable' },
          spec: { containers: [{ name: 'c', image: 'registry.example/gone:2' }] },
        },
      });
      await until(async () => {
        const reason = (await readPod('unpullable')).status?.containerStatuses?.[0]?.state?.waiting?.reason;
        return reason === 'ErrImagePull' || reason === 'ImagePullBackOff';
      }, 'the pull to fail');

      const refused = await admin('POST', { unpullableImages: 'nope', jobRunMs: 5 });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        reason: 'BadRequest',
        message: 'unpullableImages must be a list of image patterns (strings; a trailing * matches a prefix)',
      });
      expect(
        ((await admin('POST', { restartBackOff: 1 }).then((r) => r.json())) as { message: string }).message,
      ).toMatch(/^unknown setting "restartBackOff"; known: /);
      expect(await (await admin('GET')).json()).toMatchObject({
        jobRunMs: 100,
        unpullableImages: ['registry.example/gone*'],
      });
    } finally {
      await admin('POST', { unpullableImages: [], failingJobImages: [] });
    }
    expect(c.sim.settings.unpullableImages).toEqual([]);
  });

  it('longshore sim takes them as flags', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-sim-flags-'));
    const proc = startProcess(
      CLI,
      [
        'sim',
        '--kubeconfig',
        join(dir, 'kubeconfig'),
        '--unpullable-image',
        'registry.example/a*',
        '--unpullable-image',
        'registry.example/b:1',
        '--failing-job-image',
        'registry.example/c:*',
        '--restart-back-off-ms',
        '250',
        // Every setting has a flag, derived from the settings (settings-flags.ts).
        '--private-registry',
        'registry.example.com',
        '--job-run-ms',
        '40',
      ],
      {},
    );
    try {
      const line = await proc.waitForLine(/^kube-sim listening on /);
      const url = line.replace('kube-sim listening on ', '');
      expect(await (await fetch(`${url}/__sim/settings`)).json()).toMatchObject({
        unpullableImages: ['registry.example/a*', 'registry.example/b:1'],
        failingJobImages: ['registry.example/c:*'],
        restartBackOffMs: 250,
        privateRegistries: ['registry.example.com'],
        jobRunMs: 40,
      });
    } finally {
      proc.kill('SIGTERM');
      await proc.exited;
    }
  });
});
