/**
 * The simulated workload controllers through the real @kubernetes/client-node and kubectl 1.33:
 * Deployment rollouts (ReplicaSets, revisions, history limit, surge/unavailability bounds, pause,
 * Recreate, progress deadline), the ReplicaSet controller, and the scheduler/kubelet's Pod
 * lifecycle including the start failures missing Secrets, ConfigMaps and images cause.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreEvent } from '../../../infra/kube-sim/store/object-store.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { stays, until } from '../../helpers/wait.ts';

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const UNPULLABLE = 'registry.example.com/missing';
/** rand.SafeEncodeString's alphabet. */
const ALPHABET = '[bcdfghjklmnpqrstvwxz2456789]';

interface DeploymentOptions {
  replicas?: number;
  image?: string;
  podSpec?: Partial<k8s.V1PodSpec>;
  spec?: Partial<k8s.V1DeploymentSpec>;
}

function deployment(name: string, o: DeploymentOptions = {}): k8s.V1Deployment {
  return {
    metadata: { name },
    spec: {
      replicas: o.replicas ?? 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image: o.image ?? 'nginx:1.27' }], ...o.podSpec },
      },
      ...o.spec,
    },
  };
}

const condition = (d: k8s.V1Deployment, type: string) => d.status?.conditions?.find((c) => c.type === type);

/** kubectl's rollout_status.go, for a Deployment read through client-node. */
function rolledOut(d: k8s.V1Deployment): boolean {
  const s = d.status ?? {};
  return (
    (d.metadata?.generation ?? 0) <= (s.observedGeneration ?? 0) &&
    condition(d, 'Progressing')?.reason !== 'ProgressDeadlineExceeded' &&
    (s.updatedReplicas ?? 0) >= (d.spec?.replicas ?? 1) &&
    (s.replicas ?? 0) <= (s.updatedReplicas ?? 0) &&
    (s.availableReplicas ?? 0) >= (s.updatedReplicas ?? 0)
  );
}

describe('kube-sim workload controllers', () => {
  let c: SimClients;
  let seq = 0;

  beforeAll(async () => {
    c = await startSimWithClients({
      settings: {
        podReadyDelayMs: 40,
        rolloutStepDelayMs: 5,
        jobRunMs: 80,
        unpullableImages: [`${UNPULLABLE}*`],
      },
    });
  });
  afterAll(() => c.sim.stop());

  /** A fresh namespace per test, so tests never see each other's objects. */
  async function namespace(): Promise<string> {
    const ns = `wl-${++seq}`;
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
    // A Pod created before the namespace's `default` ServiceAccount exists is refused by
    // ServiceAccount admission, as upstream: wait for the serviceaccounts controller, as clients do.
    await until(
      () =>
        c.core.readNamespacedServiceAccount({ namespace: ns, name: 'default' }).then(
          () => true,
          () => undefined,
        ),
      `the default ServiceAccount of ${ns}`,
    );
    return ns;
  }

  const readDeployment = (ns: string, name: string) =>
    c.apps.readNamespacedDeployment({ namespace: ns, name });
  const replicaSets = async (ns: string) => (await c.apps.listNamespacedReplicaSet({ namespace: ns })).items;
  const pods = async (ns: string, app: string) =>
    (await c.core.listNamespacedPod({ namespace: ns, labelSelector: `app=${app}` })).items;

  const waitRolledOut = (ns: string, name: string, timeoutMs = 15_000) =>
    until(
      async () => {
        const d = await readDeployment(ns, name);
        return rolledOut(d) && condition(d, 'Progressing')?.reason === 'NewReplicaSetAvailable' && d;
      },
      `deployment ${ns}/${name} rolled out`,
      { timeoutMs },
    );

  /** Every status the store held for one object, in order (watch-like, without missing any). */
  function record(typeKey: string, ns: string): { events: StoreEvent[]; stop: () => void } {
    const events: StoreEvent[] = [];
    const stop = c.sim.store.subscribe((e) => {
      if (e.typeKey === typeKey && e.object.metadata.namespace === ns) events.push(e);
    });
    return { events, stop };
  }

  describe('Deployment rollout', () => {
    it('creates a ReplicaSet and Pods, and reports the rollout as kubectl expects', async () => {
      const ns = await namespace();
      const history = record('apps/deployments', ns);
      await c.apps.createNamespacedDeployment({ namespace: ns, body: deployment('web') });
      const d = await waitRolledOut(ns, 'web');
      history.stop();

      expect(d.metadata?.generation).toBe(1);
      expect(d.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
      expect(d.status).toMatchObject({
        observedGeneration: 1,
        replicas: 2,
        updatedReplicas: 2,
        readyReplicas: 2,
        availableReplicas: 2,
      });
      expect(d.status?.unavailableReplicas).toBeUndefined();

      const [rs, ...others] = await replicaSets(ns);
      expect(others).toEqual([]);
      const hash = rs!.metadata!.labels!['pod-template-hash']!;
      expect(hash).toMatch(new RegExp(`^${ALPHABET}{1,10}$`));
      expect(rs!.metadata?.name).toBe(`web-${hash}`);
      expect(rs!.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'web',
          uid: d.metadata!.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(rs!.metadata?.annotations).toEqual({
        'deployment.kubernetes.io/revision': '1',
        'deployment.kubernetes.io/desired-replicas': '2',
        'deployment.kubernetes.io/max-replicas': '3',
      });
      expect(rs!.metadata?.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
      expect(rs!.spec?.selector.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
      expect(rs!.spec?.template?.metadata?.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
      expect(rs!.status).toMatchObject({
        replicas: 2,
        fullyLabeledReplicas: 2,
        readyReplicas: 2,
        availableReplicas: 2,
        observedGeneration: 1,
      });

      expect(condition(d, 'Available')).toMatchObject({
        status: 'True',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
      });
      const progressing = condition(d, 'Progressing')!;
      expect(progressing).toMatchObject({
        status: 'True',
        reason: 'NewReplicaSetAvailable',
        message: `ReplicaSet "web-${hash}" has successfully progressed.`,
      });
      expect(progressing.lastUpdateTime).toBeInstanceOf(Date);
      // Progressing stayed True through the rollout: its transition time is the first one's.
      const reasons = history.events
        .map((e) => (e.object.status as k8s.V1DeploymentStatus | undefined)?.conditions)
        .map((cs) => cs?.find((x) => x.type === 'Progressing'))
        .filter((x) => x !== undefined);
      expect(reasons[0]).toMatchObject({
        reason: 'NewReplicaSetCreated',
        message: `Created new replica set "web-${hash}"`,
      });
      expect(reasons.at(-1)!.lastTransitionTime).toBe(reasons[0]!.lastTransitionTime);
      const available = history.events
        .map((e) => (e.object.status as k8s.V1DeploymentStatus | undefined)?.conditions)
        .map((cs) => cs?.find((x) => x.type === 'Available')?.status)
        .filter((x) => x !== undefined);
      expect(available[0]).toBe('False');
      expect(available.at(-1)).toBe('True');

      const ps = await pods(ns, 'web');
      expect(ps).toHaveLength(2);
      for (const p of ps) {
        expect(p.metadata?.name).toMatch(new RegExp(`^web-${hash}-${ALPHABET}{5}$`));
        expect(p.metadata?.generateName).toBe(`web-${hash}-`);
        expect(p.metadata?.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
        expect(p.metadata?.ownerReferences).toEqual([
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: `web-${hash}`,
            uid: rs!.metadata!.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ]);
        expect(p.spec?.nodeName).toBe('kube-sim-node');
        expect(p.status?.phase).toBe('Running');
        expect(p.status?.conditions?.map((x) => [x.type, x.status])).toEqual([
          ['PodReadyToStartContainers', 'True'],
          ['Initialized', 'True'],
          ['Ready', 'True'],
          ['ContainersReady', 'True'],
          ['PodScheduled', 'True'],
        ]);
        expect(p.status?.podIP).toMatch(/^10\.244\.\d+\.\d+$/);
        expect(p.status?.hostIP).toBeTruthy();
        expect(p.status?.startTime).toBeInstanceOf(Date);
        expect(p.status?.qosClass).toBe('BestEffort');
        const [cs] = p.status?.containerStatuses ?? [];
        expect(cs).toMatchObject({
          name: 'web',
          ready: true,
          started: true,
          restartCount: 0,
          image: 'docker.io/library/nginx:1.27',
        });
        expect(cs?.state?.running?.startedAt).toBeInstanceOf(Date);
        expect(cs?.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
        expect(cs?.imageID).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
      }
    });

    it('rolls a new template out to a second ReplicaSet, keeps the old one at 0, reuses it on rollback', async () => {
      const ns = await namespace();
      await c.apps.createNamespacedDeployment({ namespace: ns, body: deployment('web') });
      await waitRolledOut(ns, 'web');
      const [first] = await replicaSets(ns);

      await c.apps.patchNamespacedDeployment(
        {
          namespace: ns,
          name: 'web',
          body: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } },
        },
        merge,
      );
      const d2 = await waitRolledOut(ns, 'web');
      expect(d2.metadata?.generation).toBe(2);
      expect(d2.status?.observedGeneration).toBe(2);
      expect(d2.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
      const rsList = await replicaSets(ns);
      expect(rsList).toHaveLength(2);
      const old = rsList.find((r) => r.metadata?.uid === first!.metadata?.uid)!;
      const second = rsList.find((r) => r.metadata?.uid !== first!.metadata?.uid)!;
      expect(second.metadata?.name).not.toBe(old.metadata?.name);
      expect(second.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
      expect(old.spec?.replicas).toBe(0);
      expect(old.status?.replicas).toBe(0);
      expect(second.status?.availableReplicas).toBe(2);
      const ps = await pods(ns, 'web');
      expect(ps).toHaveLength(2);
      expect(ps.every((p) => p.metadata?.ownerReferences?.[0]?.uid === second.metadata?.uid)).toBe(true);
      expect(ps.every((p) => p.spec?.containers[0]?.image === 'nginx:1.28')).toBe(true);

      // Back to the first template: its ReplicaSet comes back under a new revision (getNewReplicaSet).
      await c.apps.patchNamespacedDeployment(
        {
          namespace: ns,
          name: 'web',
          body: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } },
        },
        merge,
      );
      const d3 = await waitRolledOut(ns, 'web');
      expect(d3.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
      const after = await replicaSets(ns);
      expect(after).toHaveLength(2);
      const reused = after.find((r) => r.metadata?.uid === first!.metadata?.uid)!;
      expect(reused.spec?.replicas).toBe(2);
      expect(reused.metadata?.annotations).toMatchObject({
        'deployment.kubernetes.io/revision': '3',
        'deployment.kubernetes.io/revision-history': '1',
      });
      expect(after.find((r) => r.metadata?.uid === second.metadata?.uid)?.spec?.replicas).toBe(0);
    });

    it('deletes the oldest ReplicaSets beyond revisionHistoryLimit', async () => {
      const ns = await namespace();
      const body = deployment('web', { replicas: 1, spec: { revisionHistoryLimit: 1 } });
      await c.apps.createNamespacedDeployment({ namespace: ns, body });
      await waitRolledOut(ns, 'web');
      for (const image of ['nginx:1.28', 'nginx:1.29']) {
        await c.apps.patchNamespacedDeployment(
          {
            namespace: ns,
            name: 'web',
            body: { spec: { template: { spec: { containers: [{ name: 'web', image }] } } } },
          },
          merge,
        );
        await waitRolledOut(ns, 'web');
      }
      const revisions = await until(async () => {
        const list = await replicaSets(ns);
        return list.length === 2 && list;
      }, 'the oldest ReplicaSet deleted');
      expect(
        revisions.map((r) => r.metadata?.annotations?.['deployment.kubernetes.io/revision']).sort(),
      ).toEqual(['2', '3']);
      expect(
        revisions.find((r) => r.spec?.template?.spec?.containers[0]?.image === 'nginx:1.27'),
      ).toBeUndefined();
    });

    it('keeps a rolling update within maxSurge and maxUnavailable', async () => {
      const ns = await namespace();
      const body = deployment('web', {
        replicas: 4,
        spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
      });
      await c.apps.createNamespacedDeployment({ namespace: ns, body });
      await waitRolledOut(ns, 'web');
      const history = record('apps/deployments', ns);
      await c.apps.patchNamespacedDeployment(
        {
          namespace: ns,
          name: 'web',
          body: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } },
        },
        merge,
      );
      await waitRolledOut(ns, 'web');
      history.stop();
      const statuses = history.events.map((e) => e.object.status as k8s.V1DeploymentStatus);
      // Never more than replicas + maxSurge Pods, never fewer than replicas - maxUnavailable available.
      expect(Math.max(...statuses.map((s) => s.replicas ?? 0))).toBe(5);
      expect(Math.min(...statuses.map((s) => s.availableReplicas ?? 0))).toBe(4);
      // Progress between the ReplicaSets is reported as ReplicaSetUpdated along the way.
      const reasons = statuses.map((s) => s.conditions?.find((x) => x.type === 'Progressing')?.reason);
      expect(reasons).toContain('ReplicaSetUpdated');
      expect(reasons.at(-1)).toBe('NewReplicaSetAvailable');
    });

    it('with Recreate, removes the old Pods before creating the new ReplicaSet', async () => {
      const ns = await namespace();
      const body = deployment('web', { replicas: 2, spec: { strategy: { type: 'Recreate' } } });
      await c.apps.createNamespacedDeployment({ namespace: ns, body });
      await waitRolledOut(ns, 'web');
      const [oldRS] = await replicaSets(ns);
      const podEvents = record('/pods', ns);
      await c.apps.patchNamespacedDeployment(
        {
          namespace: ns,
          name: 'web',
          body: { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } },
        },
        merge,
      );
      await waitRolledOut(ns, 'web');
      podEvents.stop();
      const firstNewPod = podEvents.events.findIndex(
        (e) => e.type === 'ADDED' && e.object.metadata.ownerReferences?.[0]?.uid !== oldRS!.metadata?.uid,
      );
      const lastOldGone = podEvents.events.findLastIndex(
        (e) => e.type === 'DELETED' && e.object.metadata.ownerReferences?.[0]?.uid === oldRS!.metadata?.uid,
      );
      expect(lastOldGone).toBeGreaterThanOrEqual(0);
      expect(firstNewPod).toBeGreaterThan(lastOldGone);
    });

    it('honours spec.paused: scales but does not roll until resumed', async () => {
      const ns = await namespace();
      await c.apps.createNamespacedDeployment({ namespace: ns, body: deployment('web') });
      await waitRolledOut(ns, 'web');
      await c.apps.patchNamespacedDeployment(
        {
          namespace: ns,
          name: 'web',
          body: {
            spec: {
              paused: true,
              replicas: 3,
              template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } },
            },
          },
        },
        merge,
      );
      const paused = await until(async () => {
        const d = await readDeployment(ns, 'web');
        return (
          d.status?.availableReplicas === 3 && condition(d, 'Progressing')?.reason === 'DeploymentPaused' && d
        );
      }, 'the paused Deployment scaled to 3');
      expect(condition(paused, 'Progressing')).toMatchObject({
        status: 'Unknown',
        message: 'Deployment is paused',
      });
      expect(await replicaSets(ns)).toHaveLength(1);
      expect(
        (await replicaSets(ns))[0]?.metadata?.annotations?.['deployment.kubernetes.io/desired-replicas'],
      ).toBe('3');

      await c.apps.patchNamespacedDeployment(
        { namespace: ns, name: 'web', body: { spec: { paused: false } } },
        merge,
      );
      const resumed = await waitRolledOut(ns, 'web');
      expect(resumed.status?.updatedReplicas).toBe(3);
      expect(await replicaSets(ns)).toHaveLength(2);
      expect((await pods(ns, 'web')).every((p) => p.spec?.containers[0]?.image === 'nginx:1.28')).toBe(true);
    });

    it('reports ProgressDeadlineExceeded when the new Pods cannot pull their image', async () => {
      const ns = await namespace();
      const body = deployment('stuck', { image: `${UNPULLABLE}:1.0`, spec: { progressDeadlineSeconds: 2 } });
      await c.apps.createNamespacedDeployment({ namespace: ns, body });
      const d = await until(
        async () => {
          const x = await readDeployment(ns, 'stuck');
          return condition(x, 'Progressing')?.reason === 'ProgressDeadlineExceeded' && x;
        },
        'the progress deadline exceeded',
        { timeoutMs: 15_000 },
      );
      const [rs] = await replicaSets(ns);
      expect(condition(d, 'Progressing')).toMatchObject({
        status: 'False',
        message: `ReplicaSet "${rs!.metadata?.name}" has timed out progressing.`,
      });
      expect(condition(d, 'Available')).toMatchObject({
        status: 'False',
        reason: 'MinimumReplicasUnavailable',
      });
      expect(d.status).toMatchObject({ replicas: 2, updatedReplicas: 2, unavailableReplicas: 2 });
      expect(d.status?.availableReplicas).toBeUndefined();
      for (const p of await pods(ns, 'stuck')) {
        expect(p.status?.phase).toBe('Pending');
        expect(p.status?.containerStatuses?.[0]?.state?.waiting).toEqual({
          reason: 'ImagePullBackOff',
          message: `Back-off pulling image "${UNPULLABLE}:1.0"`,
        });
      }
    });
  });

  describe('Pod start failures', () => {
    it('keeps Pods whose envFrom Secret is missing in CreateContainerConfigError until it exists', async () => {
      const ns = await namespace();
      const body = deployment('web', {
        podSpec: {
          containers: [
            { name: 'web', image: 'nginx:1.27', envFrom: [{ secretRef: { name: 'config-web' } }] },
          ],
        },
      });
      await c.apps.createNamespacedDeployment({ namespace: ns, body });
      const blocked = await until(async () => {
        const ps = await pods(ns, 'web');
        return (
          ps.length === 2 &&
          ps.every(
            (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError',
          ) &&
          ps
        );
      }, 'Pods in CreateContainerConfigError');
      for (const p of blocked) {
        expect(p.status?.phase).toBe('Pending');
        expect(p.status?.containerStatuses?.[0]).toMatchObject({
          ready: false,
          started: false,
          state: {
            waiting: { reason: 'CreateContainerConfigError', message: 'secret "config-web" not found' },
          },
        });
        expect(p.status?.conditions?.find((x) => x.type === 'Ready')).toMatchObject({
          status: 'False',
          reason: 'ContainersNotReady',
          message: 'containers with unready status: [web]',
        });
      }
      await c.sim.settle();
      const d = await readDeployment(ns, 'web');
      expect(condition(d, 'Available')).toMatchObject({
        status: 'False',
        reason: 'MinimumReplicasUnavailable',
      });
      expect(d.status?.readyReplicas).toBeUndefined();
      expect(rolledOut(d)).toBe(false);

      await c.core.createNamespacedSecret({
        namespace: ns,
        body: { metadata: { name: 'config-web' }, stringData: { A: '1' } },
      });
      await waitRolledOut(ns, 'web');
      const ps = await pods(ns, 'web');
      expect(ps.map((p) => p.status?.phase)).toEqual(['Running', 'Running']);
    });

    it('blocks on a missing ConfigMap key, but not on optional references', async () => {
      const ns = await namespace();
      await c.core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'settings' }, data: { a: '1' } },
      });
      const body = deployment('web', {
        replicas: 1,
        podSpec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.27',
              env: [
                { name: 'OPT', valueFrom: { secretKeyRef: { name: 'nope', key: 'x', optional: true } } },
                { name: 'B', valueFrom: { configMapKeyRef: { name: 'settings', key: 'b' } } },
              ],
            },
          ],
        },
      });
      await c.apps.createNamespacedDeployment({ namespace: ns, body });
      // The optional reference to a missing Secret is skipped; the missing key blocks the start.
      const waiting = await until(async () => {
        const w = (await pods(ns, 'web'))[0]?.status?.containerStatuses?.[0]?.state?.waiting;
        return w?.reason === 'CreateContainerConfigError' && w;
      }, 'CreateContainerConfigError');
      expect(waiting.message).toBe(`couldn't find key b in ConfigMap ${ns}/settings`);
      await c.core.patchNamespacedConfigMap(
        { namespace: ns, name: 'settings', body: { data: { b: '2' } } },
        merge,
      );
      await waitRolledOut(ns, 'web');
    });

    it('fails the pull from a private registry until a pull Secret holds its credentials', async () => {
      const ns = await namespace();
      // Only a registry the simulation marks private refuses a pull without credentials.
      c.sim.settings.privateRegistries = ['registry.example.com'];
      const body = deployment('web', {
        replicas: 1,
        image: 'registry.example.com/team/app:2',
        podSpec: { imagePullSecrets: [{ name: 'regcred' }] },
        spec: { progressDeadlineSeconds: 600 },
      });
      const history = record('/pods', ns);
      await c.apps.createNamespacedDeployment({ namespace: ns, body });
      const p = await until(async () => {
        const [x] = await pods(ns, 'web');
        return x?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff' && x;
      }, 'ImagePullBackOff');
      history.stop();
      const reasons = history.events.map(
        (e) =>
          (e.object.status as k8s.V1PodStatus | undefined)?.containerStatuses?.[0]?.state?.waiting as
            | k8s.V1ContainerStateWaiting
            | undefined,
      );
      // ContainerCreating while the kubelet sets up, then the runtime's error, then the back-off.
      expect(reasons.map((r) => r?.reason).filter((r) => r !== undefined)).toEqual(
        expect.arrayContaining(['ContainerCreating', 'ErrImagePull', 'ImagePullBackOff']),
      );
      expect(reasons.find((r) => r?.reason === 'ErrImagePull')?.message).toBe(
        'rpc error: code = Unknown desc = failed to pull and unpack image "registry.example.com/team/app:2": failed to resolve reference "registry.example.com/team/app:2": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed',
      );
      expect(p.status?.containerStatuses?.[0]?.state?.waiting?.message).toBe(
        'Back-off pulling image "registry.example.com/team/app:2"',
      );
      expect(p.status?.containerStatuses?.[0]?.ready).toBe(false);
      expect(condition(await readDeployment(ns, 'web'), 'Available')?.status).toBe('False');

      await c.core.createNamespacedSecret({
        namespace: ns,
        body: {
          metadata: { name: 'regcred' },
          type: 'kubernetes.io/dockerconfigjson',
          stringData: {
            '.dockerconfigjson': JSON.stringify({
              auths: { 'registry.example.com': { auth: Buffer.from('u:p').toString('base64') } },
            }),
          },
        },
      });
      await waitRolledOut(ns, 'web');
      c.sim.settings.privateRegistries = [];
    });

    it('keeps Pods with an unmountable Secret volume in ContainerCreating', async () => {
      const ns = await namespace();
      const pod: k8s.V1Pod = {
        metadata: { name: 'vol', labels: { app: 'vol' } },
        spec: {
          containers: [{ name: 'c', image: 'busybox:1.36', volumeMounts: [{ name: 's', mountPath: '/s' }] }],
          volumes: [{ name: 's', secret: { secretName: 'tls' } }],
        },
      };
      await c.core.createNamespacedPod({ namespace: ns, body: pod });
      await c.sim.settle();
      const readVol = () => c.core.readNamespacedPod({ namespace: ns, name: 'vol' });
      await stays(
        async () =>
          (await readVol()).status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ContainerCreating',
        150,
        'the Pod in ContainerCreating while its Secret is missing',
      );
      const p = await readVol();
      expect(p.status?.phase).toBe('Pending');
      expect(p.status?.podIP).toBeUndefined();
      expect(p.status?.containerStatuses?.[0]?.state?.waiting).toEqual({ reason: 'ContainerCreating' });
      expect(p.status?.conditions?.find((x) => x.type === 'PodReadyToStartContainers')?.status).toBe('False');
      await c.core.createNamespacedSecret({
        namespace: ns,
        body: { metadata: { name: 'tls' }, stringData: { k: 'v' } },
      });
      await until(
        async () =>
          (await c.core.readNamespacedPod({ namespace: ns, name: 'vol' })).status?.phase === 'Running',
        'the Pod running once its Secret exists',
      );
    });

    it('recovers a Pod once its image becomes pullable', async () => {
      const ns = await namespace();
      const image = 'registry.example.com/later/app:1';
      c.sim.settings.unpullableImages.push(image);
      await c.core.createNamespacedPod({
        namespace: ns,
        body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image }] } },
      });
      await until(
        async () =>
          (await c.core.readNamespacedPod({ namespace: ns, name: 'p' })).status?.containerStatuses?.[0]?.state
            ?.waiting?.reason === 'ImagePullBackOff',
        'ImagePullBackOff',
      );
      c.sim.settings.unpullableImages.splice(c.sim.settings.unpullableImages.indexOf(image), 1);
      const p = await until(async () => {
        const x = await c.core.readNamespacedPod({ namespace: ns, name: 'p' });
        return x.status?.phase === 'Running' && x;
      }, 'the Pod running');
      expect(p.status?.conditions?.find((x) => x.type === 'Ready')?.status).toBe('True');
    });
  });

  describe('Pods that run to completion', () => {
    it('ends restartPolicy Never Pods Succeeded, or Failed for failing images', async () => {
      const ns = await namespace();
      c.sim.settings.failingJobImages = ['busybox:fail'];
      const body = (name: string, image: string): k8s.V1Pod => ({
        metadata: { name },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image }] },
      });
      await c.core.createNamespacedPod({ namespace: ns, body: body('ok', 'busybox:1.36') });
      await c.core.createNamespacedPod({ namespace: ns, body: body('bad', 'busybox:fail') });
      const finished = (name: string) =>
        until(async () => {
          const p = await c.core.readNamespacedPod({ namespace: ns, name });
          return (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') && p;
        }, `${name} finished`);
      const ok = await finished('ok');
      expect(ok.status?.phase).toBe('Succeeded');
      expect(ok.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
        exitCode: 0,
        reason: 'Completed',
      });
      expect(ok.status?.conditions?.find((x) => x.type === 'Ready')).toMatchObject({
        status: 'False',
        reason: 'PodCompleted',
      });
      const bad = await finished('bad');
      expect(bad.status?.phase).toBe('Failed');
      expect(bad.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
        exitCode: 1,
        reason: 'Error',
      });
      expect(bad.status?.conditions?.find((x) => x.type === 'Ready')?.reason).toBe('PodFailed');
      c.sim.settings.failingJobImages = [];
    });
  });

  describe('ReplicaSet controller', () => {
    it('keeps spec.replicas Pods: replaces deleted ones, removes surplus, adopts matching orphans', async () => {
      const ns = await namespace();
      await c.apps.createNamespacedReplicaSet({
        namespace: ns,
        body: {
          metadata: { name: 'rs' },
          spec: {
            replicas: 3,
            selector: { matchLabels: { app: 'rs' } },
            template: {
              metadata: { labels: { app: 'rs', tier: 'x' } },
              spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
            },
          },
        },
      });
      const ready = (n: number) =>
        until(async () => {
          const rs = await c.apps.readNamespacedReplicaSet({ namespace: ns, name: 'rs' });
          const ps = await pods(ns, 'rs');
          return rs.status?.readyReplicas === n && rs.status.replicas === n && ps.length === n && rs;
        }, `${n} ready replicas`);
      const rs = await ready(3);
      expect(rs.status).toEqual({
        replicas: 3,
        fullyLabeledReplicas: 3,
        readyReplicas: 3,
        availableReplicas: 3,
        observedGeneration: 1,
      });
      const [victim] = await pods(ns, 'rs');
      await c.core.deleteNamespacedPod({ namespace: ns, name: victim!.metadata!.name! });
      await ready(3);
      expect((await pods(ns, 'rs')).some((p) => p.metadata?.name === victim!.metadata?.name)).toBe(false);

      await c.apps.patchNamespacedReplicaSet(
        { namespace: ns, name: 'rs', body: { spec: { replicas: 1 } } },
        merge,
      );
      const scaled = await ready(1);
      expect(scaled.status?.observedGeneration).toBe(2);

      // An orphan the selector matches is adopted; being surplus and not ready yet, it is the Pod
      // deleted (controller.ActivePods order: unready before ready).
      const history = record('/pods', ns);
      await c.core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name: 'stray', labels: { app: 'rs' } },
          spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
        },
      });
      await c.sim.settle();
      history.stop();
      const adopted = history.events.find(
        (e) => e.object.metadata.name === 'stray' && e.object.metadata.ownerReferences?.length,
      );
      expect(adopted?.object.metadata.ownerReferences).toEqual([
        expect.objectContaining({
          kind: 'ReplicaSet',
          name: 'rs',
          controller: true,
          blockOwnerDeletion: true,
        }),
      ]);
      const after = await pods(ns, 'rs');
      expect(after).toHaveLength(1);
      expect(after[0]?.metadata?.name).not.toBe('stray');
      expect(after[0]?.metadata?.ownerReferences?.[0]?.name).toBe('rs');
    });
  });

  describe('real kubectl', () => {
    let cli: KubeCli;
    const ns = 'kubectl-rollout';

    beforeAll(async () => {
      cli = await kubeCli(c.sim);
      await cli.kubectl(['apply', '-f', '-'], `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n`);
    });

    const manifest = (name: string, image: string, extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  replicas: 2${extra}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
        - name: web
          image: ${image}
`;

    it('rollout status succeeds on a good rollout', async () => {
      const applied = await cli.kubectl(['apply', '-f', '-'], manifest('good', 'nginx:1.27'));
      expect(applied.stdout.trim()).toBe('deployment.apps/good created');
      const status = await cli.kubectl(['rollout', 'status', 'deployment/good', '-n', ns, '--timeout=20s']);
      expect(status.stderr).toBe('');
      expect(status.code).toBe(0);
      expect(status.stdout).toContain('deployment "good" successfully rolled out');
    });

    it('rollout status fails on a Deployment past its progress deadline', async () => {
      await cli.kubectl(
        ['apply', '-f', '-'],
        manifest('stuck', `${UNPULLABLE}:2`, '\n  progressDeadlineSeconds: 2'),
      );
      const status = await cli.kubectl(['rollout', 'status', 'deployment/stuck', '-n', ns, '--timeout=20s']);
      expect(status.code).not.toBe(0);
      expect(status.stderr).toContain('deployment "stuck" exceeded its progress deadline');
    });

    it('rollout history and undo work on the ReplicaSets’ revisions', async () => {
      await cli.kubectl(['apply', '-f', '-'], manifest('good', 'nginx:1.28'));
      const rolled = await cli.kubectl(['rollout', 'status', 'deployment/good', '-n', ns, '--timeout=20s']);
      expect(rolled.stdout).toContain('deployment "good" successfully rolled out');
      const revisions = async () =>
        (await cli.kubectl(['rollout', 'history', 'deployment/good', '-n', ns])).stdout
          .split('\n')
          .map((l) => l.match(/^(\d+)\s/)?.[1])
          .filter((r) => r !== undefined);
      expect(await revisions()).toEqual(['1', '2']);
      const undo = await cli.kubectl(['rollout', 'undo', 'deployment/good', '-n', ns]);
      expect(undo.stdout.trim()).toBe('deployment.apps/good rolled back');
      const again = await cli.kubectl([
        'rollout',
        'status',
        'deployment/good',
        '-n',
        ns,
        '--timeout=20s',
        '--revision=3',
      ]);
      expect(again.code).toBe(0);
      expect(await revisions()).toEqual(['2', '3']);
      const d = await readDeployment(ns, 'good');
      expect(d.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.27');
    });

    it('get pods,rs,deploy lists what the controllers made', async () => {
      const out = await cli.kubectl(['get', 'pods,rs,deploy', '-n', ns]);
      expect(out.code).toBe(0);
      const [good] = (await replicaSets(ns)).filter((r) => r.metadata?.labels?.app === 'good');
      expect(out.stdout).toContain('deployment.apps/good');
      expect(out.stdout).toContain('deployment.apps/stuck');
      expect(out.stdout).toContain(`replicaset.apps/${good!.metadata!.name}`);
      for (const p of await pods(ns, 'good')) expect(out.stdout).toContain(`pod/${p.metadata!.name}`);
      // kube-sim serves no Table output, so kubectl prints names and ages only; read the rest as JSON paths.
      const ready = await cli.kubectl([
        'get',
        'deploy',
        '-n',
        ns,
        '-o',
        'jsonpath={range .items[*]}{.metadata.name}={.status.readyReplicas}/{.status.replicas} {end}',
      ]);
      expect(ready.stdout.trim()).toBe('good=2/2 stuck=/2');
      const waiting = await cli.kubectl([
        'get',
        'pods',
        '-n',
        ns,
        '-l',
        'app=stuck',
        '-o',
        'jsonpath={.items[*].status.containerStatuses[0].state.waiting.reason}',
      ]);
      expect(waiting.stdout.trim()).toBe('ImagePullBackOff ImagePullBackOff');
    });
  });
});
