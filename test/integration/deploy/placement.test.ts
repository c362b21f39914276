/**
 * Rollout parallelism, scoped labels and annotations, and placement profiles end to end: CLI →
 * Redis → worker process → kube-sim over HTTP. Each setting is checked on the live objects it
 * belongs on and on the ones it must not reach; bad input is refused by the CLI (exit 2) with
 * nothing enqueued, and unsupported app.json keys are reported by the deploy.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeName } from '../../../infra/kube-sim/controllers/node-objects.ts';
import { type DeployFleet, startDeployFleet } from '../../helpers/deploy-fleet.ts';
import { until } from '../../helpers/wait.ts';

let fleet: DeployFleet;
const GPU_NODE = nodeName(2);

beforeAll(async () => {
  // Two nodes; the second is the GPU pool: labelled, and tainted so only tolerating pods land there.
  fleet = await startDeployFleet({ settings: { nodes: 2 } });
  await fleet.core.patchNode(
    {
      name: GPU_NODE,
      body: {
        metadata: { labels: { 'example.com/pool': 'gpu' } },
        spec: {
          taints: [
            { key: 'gpu', effect: 'NoSchedule' },
            { key: 'dedicated', value: 'ml', effect: 'NoExecute' },
          ],
        },
      },
    },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
  await fleet.startWorker();
});

afterAll(async () => {
  await fleet?.stop();
});

const PROCFILE = 'web: bin/web\nworker: bin/worker\n';
const APP_JSON = JSON.stringify({
  name: 'shop',
  env: { SECRET: { generator: 'secret' } },
  // Heroku's top-level `postdeploy` (Dokku reads `scripts.dokku.postdeploy`): not read.
  scripts: { postdeploy: 'bin/notify' },
  formation: {
    web: { quantity: 2, max_parallel: 2 },
    worker: { quantity: 1, service: { external: false } },
  },
  cron: [{ command: 'bin/report', schedule: '@daily' }],
});

const deployArgs = (app: string, json = APP_JSON) => [
  'deploy',
  app,
  '--image',
  `registry.example.com/${app}:1`,
  '--procfile',
  fleet.file(`${app}.Procfile`, PROCFILE),
  '--app-json',
  fleet.file(`${app}.app.json`, json),
  '--wait',
];

const deployment = (name: string): Promise<k8s.V1Deployment> =>
  fleet.apps.readNamespacedDeployment({ name, namespace: 'default' });

/** Where `key` is set among the app's live objects (metadata, pod and job templates). */
async function whereKey(app: string, field: 'labels' | 'annotations', key: string): Promise<string[]> {
  const selector = { namespace: 'default', labelSelector: `app.kubernetes.io/part-of=${app}` };
  const out: string[] = [];
  const at = (where: string, meta: k8s.V1ObjectMeta | undefined) => {
    const value = meta?.[field]?.[key];
    if (value !== undefined) out.push(`${where}=${value}`);
  };
  for (const d of (await fleet.apps.listNamespacedDeployment(selector)).items) {
    at(`Deployment/${d.metadata?.name}`, d.metadata);
    at(`Deployment/${d.metadata?.name} pod`, d.spec?.template.metadata);
  }
  for (const s of (await fleet.core.listNamespacedService(selector)).items)
    at(`Service/${s.metadata?.name}`, s.metadata);
  for (const i of (await fleet.networking.listNamespacedIngress(selector)).items) at('Ingress', i.metadata);
  for (const c of (await fleet.batch.listNamespacedCronJob(selector)).items) {
    at('CronJob', c.metadata);
    at('CronJob job', c.spec?.jobTemplate.metadata);
    at('CronJob pod', c.spec?.jobTemplate.spec?.template.metadata);
  }
  return out.sort();
}

/** Refused by the CLI with exit 2 and the message, and nothing enqueued. */
async function refused(args: string[], message: RegExp): Promise<void> {
  const result = await fleet.cli(args);
  expect(result.code, `${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(`${result.stdout}${result.stderr}`).not.toMatch(/enqueued/);
}

describe('rollout parallelism, labels, annotations and placement', () => {
  it('refuses bad input before anything is enqueued, naming the flag or the app.json path', async () => {
    await refused(
      ['profiles:set', 'gpu', '--toleration', 'gpu:Sometimes'],
      /--toleration: "gpu:Sometimes": unknown effect "Sometimes"/,
    );
    await refused(
      ['profiles:set', 'gpu', '--node-selector', 'pool'],
      /--node-selector: "pool" is not key=value/,
    );
    await refused(['labels:set', 'shop', 'not a key', 'v'], /KEY: .*qualified name/);
    await refused(
      ['labels:set', 'shop', 'app.kubernetes.io/name', 'x'],
      /set by longshore and cannot be overridden/,
    );
    await refused(['annotations:set', 'shop', 'longshore.dev/config-digest', 'x'], /set by longshore/);
    await refused(['labels:set', 'shop', 'example.com/team', 'not a value!'], /VALUE: must be at most 63/);
    await refused(
      ['labels:set', 'shop', 'example.com/team', 'x', '--resource-type', 'nope'],
      /--resource-type: "nope" is not a resource type/,
    );
    await refused(
      ['labels:set', 'shop', 'example.com/team', 'x', '--resource-type', 'cronjob', '--process-type', 'web'],
      /--process-type: CronJobs belong to no process type/,
    );
    await refused(
      ['ps:set', 'shop', 'worker', 'profile', 'nope'],
      /NAME: placement profile "nope" does not exist/,
    );
    for (const bad of [0, -1, 1.5])
      await refused(
        deployArgs('shop', JSON.stringify({ formation: { web: { max_parallel: bad } } })),
        /formation\.web\.max_parallel: must be a whole number from 1 to 1000/,
      );
    // Nothing of the app reached the cluster.
    expect((await fleet.apps.listNamespacedDeployment({ namespace: 'default' })).items).toEqual([]);
  });

  it('puts max_parallel, labels, annotations and a profile on their objects and nowhere else', async () => {
    await fleet.ok([
      'profiles:set',
      'gpu',
      '--node-selector',
      'example.com/pool=gpu',
      '--toleration',
      'gpu:NoSchedule',
      '--toleration',
      'dedicated=ml:NoExecute',
      '--wait',
    ]);
    expect(await fleet.ok(['profiles:list'])).toMatch(
      /gpu {2}node-selector: example\.com\/pool=gpu {2}tolerations: gpu:NoSchedule dedicated=ml:NoExecute/,
    );
    await fleet.ok(['domains:add', 'shop', 'shop.example.com', '--wait']);

    const deployed = await fleet.cli(deployArgs('shop'));
    expect(deployed.code, deployed.stderr).toBe(0);
    // Reported once, naming every key the deploy does not act on.
    const all = `${deployed.stdout}${deployed.stderr}`;
    const warning =
      'app.json: not supported by longshore, ignored: env, formation.worker.service, scripts.postdeploy';
    expect(all.split(warning).length - 1).toBe(1);
    const jobId = /enqueued deploy job (\S+)/.exec(all)?.[1];
    const shown = JSON.parse(await fleet.ok(['jobs:show', jobId!, '--json'])) as {
      returnValue: { warnings?: string[] };
    };
    expect(shown.returnValue.warnings).toEqual([expect.stringContaining(warning)]);

    // max_parallel: web rolls 2 pods at a time, keeping every old one until its replacement is ready.
    expect((await deployment('shop-web')).spec?.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 2, maxUnavailable: 0 },
    });
    expect((await deployment('shop-worker')).spec?.strategy?.rollingUpdate?.maxSurge).not.toBe(2);

    // A dry run shows the change and writes nothing.
    const writes = await fleet.writesDuring(async () => {
      const plan = await fleet.ok(['labels:set', 'shop', 'example.com/team', 'payments', '--dry-run']);
      expect(plan).toMatch(/~ update Deployment\/shop-web/);
      expect(plan).toMatch(/\+ +example\.com\/team: payments/);
    });
    expect(writes.filter((w) => !w.includes('longshore-system/') && !w.includes('/leases'))).toEqual([]);
    expect(await whereKey('shop', 'labels', 'example.com/team')).toEqual([]);
    await fleet.ok(['labels:set', 'shop', 'example.com/team', 'payments', '--wait']);
    await fleet.ok([
      'labels:set',
      'shop',
      'example.com/worker-pods',
      'yes',
      '--process-type',
      'worker',
      '--resource-type',
      'pod',
      '--wait',
    ]);
    await fleet.ok(['labels:set', 'shop', 'example.com/cron', 'c', '--resource-type', 'cronjob', '--wait']);
    await fleet.ok(['labels:set', 'shop', 'example.com/job', 'j', '--resource-type', 'job', '--wait']);
    await fleet.ok([
      'annotations:set',
      'shop',
      'example.com/svc-note',
      'hello',
      '--resource-type',
      'service',
      '--wait',
    ]);
    await fleet.ok([
      'annotations:set',
      'shop',
      'example.com/ing-note',
      'hi',
      '--resource-type',
      'ingress',
      '--wait',
    ]);
    await fleet.ok([
      'annotations:set',
      'shop',
      'example.com/deploy-note',
      'web only',
      '--resource-type',
      'deployment',
      '--process-type',
      'web',
      '--wait',
    ]);
    await fleet.ok(['ps:set', 'shop', 'worker', 'profile', 'gpu', '--wait']);

    expect(await whereKey('shop', 'labels', 'example.com/team')).toEqual([
      'CronJob job=payments',
      'CronJob pod=payments',
      'CronJob=payments',
      'Deployment/shop-web pod=payments',
      'Deployment/shop-web=payments',
      'Deployment/shop-worker pod=payments',
      'Deployment/shop-worker=payments',
      'Ingress=payments',
      'Service/shop-web=payments',
    ]);
    expect(await whereKey('shop', 'labels', 'example.com/worker-pods')).toEqual([
      'Deployment/shop-worker pod=yes',
    ]);
    expect(await whereKey('shop', 'labels', 'example.com/cron')).toEqual(['CronJob=c']);
    expect(await whereKey('shop', 'labels', 'example.com/job')).toEqual(['CronJob job=j']);
    expect(await whereKey('shop', 'annotations', 'example.com/svc-note')).toEqual(['Service/shop-web=hello']);
    expect(await whereKey('shop', 'annotations', 'example.com/ing-note')).toEqual(['Ingress=hi']);
    expect(await whereKey('shop', 'annotations', 'example.com/deploy-note')).toEqual([
      'Deployment/shop-web=web only',
    ]);

    // The profile: the worker's pods only, on the template and on the pods the ReplicaSet made.
    const worker = (await deployment('shop-worker')).spec?.template.spec;
    expect(worker?.nodeSelector).toEqual({ 'example.com/pool': 'gpu' });
    expect(worker?.tolerations).toEqual([
      { key: 'dedicated', operator: 'Equal', value: 'ml', effect: 'NoExecute' },
      { key: 'gpu', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    const web = (await deployment('shop-web')).spec?.template.spec;
    expect(web?.nodeSelector).toBeUndefined();
    expect(web?.tolerations).toBeUndefined();
    const pods = (
      await fleet.core.listNamespacedPod({
        namespace: 'default',
        labelSelector: 'app.kubernetes.io/instance=shop-worker',
      })
    ).items.filter((p) => !p.metadata?.deletionTimestamp);
    expect(pods.length).toBeGreaterThan(0);
    for (const pod of pods) expect(pod.spec?.nodeName).toBe(GPU_NODE);
    // No web pod tolerates the GPU node's taints.
    const webPods = (
      await fleet.core.listNamespacedPod({
        namespace: 'default',
        labelSelector: 'app.kubernetes.io/instance=shop-web',
      })
    ).items;
    expect(webPods.length).toBeGreaterThan(0);
    for (const pod of webPods) expect(pod.spec?.nodeName).not.toBe(GPU_NODE);

    // A run of the worker type: its Job carries the job-typed label, its pod the worker's pod
    // label, and it is placed by the worker's profile.
    await fleet.ok(['run', 'shop', '--process', 'worker', '--', 'true']);
    const runs = (
      await fleet.batch.listNamespacedJob({ namespace: 'default', labelSelector: 'longshore.dev/job=run' })
    ).items;
    expect(runs).toHaveLength(1);
    expect(runs[0]?.metadata?.labels?.['example.com/job']).toBe('j');
    expect(runs[0]?.spec?.template.metadata?.labels?.['example.com/worker-pods']).toBe('yes');
    expect(runs[0]?.spec?.template.spec?.nodeSelector).toEqual({ 'example.com/pool': 'gpu' });

    // The selectors are longshore's alone.
    expect((await deployment('shop-worker')).spec?.selector.matchLabels).toEqual({
      'app.kubernetes.io/instance': 'shop-worker',
      'app.kubernetes.io/part-of': 'shop',
    });

    // A changed profile reaches the app at its next reconcile (sync enqueues one per app).
    await fleet.ok([
      'profiles:set',
      'gpu',
      '--node-selector',
      'example.com/pool=gpu',
      '--toleration',
      'gpu:NoSchedule',
      '--toleration',
      'dedicated=ml:NoExecute',
      '--toleration',
      'spot:PreferNoSchedule',
      '--wait',
    ]);
    expect((await deployment('shop-worker')).spec?.template.spec?.tolerations).toHaveLength(2);
    await fleet.ok(['sync', '--wait']);
    await until(async () => {
      const tolerations = (await deployment('shop-worker')).spec?.template.spec?.tolerations ?? [];
      return tolerations.some((t) => t.key === 'spot' && t.effect === 'PreferNoSchedule') || undefined;
    }, 'the reconcile to render the changed profile');

    // A profile in use is not removed; unset and detach take things away again.
    const unset = await fleet.cli(['profiles:unset', 'gpu', '--wait']);
    expect(unset.code).toBe(1);
    expect(unset.stderr).toMatch(/placement profile gpu is used by shop \(worker\)/);
    await fleet.ok(['labels:unset', 'shop', 'example.com/team', '--wait']);
    expect(await whereKey('shop', 'labels', 'example.com/team')).toEqual([]);
    await fleet.ok(['ps:set', 'shop', 'worker', 'profile', '--wait']);
    expect((await deployment('shop-worker')).spec?.template.spec?.nodeSelector).toBeUndefined();
    await fleet.ok(['profiles:unset', 'gpu', '--wait']);
    expect(await fleet.ok(['profiles:list'])).toMatch(/no placement profiles/);
  });
});
