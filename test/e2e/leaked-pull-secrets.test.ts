/**
 * Issue 11, case 11: another field manager extended a Deployment's `imagePullSecrets` with names
 * of Secrets that do not exist. The next deploy must roll out a template that already carries
 * exactly the intended list: one new ReplicaSet, and no Pod of it ever names a leaked Secret
 * (on a real kubelet each such Pod warns with FailedToRetrieveImagePullSecret, and a private
 * registry refuses its pull).
 * CLI → Redis → worker process → kube-sim over HTTP.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { until } from '../helpers/wait.ts';

let fleet: DeployFleet;

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
});

afterAll(async () => {
  await fleet?.stop();
});

const ok = (args: string[]) => fleet.ok(args);

function pullSecretNames(spec: k8s.V1PodSpec | undefined): string[] {
  return (spec?.imagePullSecrets ?? []).map((s) => s.name ?? '');
}

async function replicaSetNames(app: string): Promise<string[]> {
  const list = await fleet.apps.listNamespacedReplicaSet({
    namespace: 'default',
    labelSelector: `app.kubernetes.io/part-of=${app}`,
  });
  return list.items.map((rs) => rs.metadata?.name ?? '');
}

/** Every Pod of the app the watch saw, by name, with the pull secrets it named. */
async function watchPods(app: string): Promise<{ seen: Map<string, string[]>; stop(): void }> {
  const seen = new Map<string, string[]>();
  const watch = new k8s.Watch(fleet.kc);
  const request = await watch.watch(
    '/api/v1/namespaces/default/pods',
    { labelSelector: `app.kubernetes.io/part-of=${app}` },
    (_type, pod: k8s.V1Pod) => {
      const name = pod.metadata?.name ?? '';
      seen.set(name, [...new Set([...(seen.get(name) ?? []), ...pullSecretNames(pod.spec)])]);
    },
    () => undefined,
  );
  return { seen, stop: () => request.abort() };
}

describe('leaked imagePullSecrets', () => {
  it('are gone from the template the deploy rolls out: one new ReplicaSet, no Pod names them', async () => {
    const app = 'leak';
    const procfile = fleet.file(`${app}.Procfile`, 'web: nginx -g "daemon off;"\n');
    const deploy = (image: string) => ['deploy', app, '--image', image, '--procfile', procfile, '--wait'];
    // A deploy that cannot roll out fails in seconds rather than the default 300.
    await ok(['properties:set', app, 'deploy-timeout', '8', '--wait']);
    await ok(deploy('nginx:1.27'));

    // Another field manager (an old dokku, `kubectl patch`) adds entries naming Secrets that do not exist.
    await fleet.apps.patchNamespacedDeployment(
      {
        name: `${app}-web`,
        namespace: 'default',
        fieldManager: 'kubectl-patch',
        body: {
          spec: { template: { spec: { imagePullSecrets: [{ name: 'leaked-1' }, { name: 'leaked-2' }] } } },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    await fleet.sim.settle();
    const leakedTemplate = await fleet.apps.readNamespacedDeployment({
      name: `${app}-web`,
      namespace: 'default',
    });
    expect(pullSecretNames(leakedTemplate.spec?.template.spec)).toEqual(['leaked-1', 'leaked-2']);

    const replicaSetsBefore = new Set(await replicaSetNames(app));
    const podsBefore = new Set(
      (
        await fleet.core.listNamespacedPod({
          namespace: 'default',
          labelSelector: `app.kubernetes.io/part-of=${app}`,
        })
      ).items.map((p) => p.metadata?.name ?? ''),
    );
    const pods = await watchPods(app);
    try {
      const out = await ok(deploy('nginx:1.28'));
      expect(out).toMatch(/leak: revision 2 deployed/);
      expect(out).toMatch(
        /Deployment default\/leak-web: removing leaked spec\.template\.spec\.imagePullSecrets \(not applied by longshore: leaked-1, leaked-2\)/,
      );
      await fleet.sim.settle();

      const web = await fleet.apps.readNamespacedDeployment({ name: `${app}-web`, namespace: 'default' });
      expect(web.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.28');
      expect(pullSecretNames(web.spec?.template.spec)).toEqual([]);
      expect(web.status?.updatedReplicas).toBe(web.spec?.replicas);

      const created = (await replicaSetNames(app)).filter((name) => !replicaSetsBefore.has(name));
      expect(created).toHaveLength(1);

      // A Pod listed before may be gone before the watch starts (its graceful termination ends on
      // the clock), so count the new names, not the total.
      await until(
        () => [...pods.seen.keys()].some((name) => !podsBefore.has(name)) || undefined,
        'the watch to see the new Pods',
      );
      const newPods = [...pods.seen].filter(([name]) => !podsBefore.has(name));
      expect(newPods.length).toBeGreaterThan(0);
      for (const [name, secrets] of newPods) expect(secrets, `Pod ${name}`).toEqual([]);
    } finally {
      pods.stop();
    }
  });
});
