/**
 * StatefulSets, their ControllerRevisions and the cluster's Nodes through the real
 * @kubernetes/client-node and kubectl 1.33: ordered creation (OrderedReady) and Parallel, claims
 * from volumeClaimTemplates kept on scale-down, rolling updates from the highest ordinal down to
 * the partition, status and revisions as `kubectl rollout status|history` read them, the scale
 * subresource, validation, events, and Pods spread over several Nodes.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreEvent } from '../../../infra/kube-sim/store/object-store.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

function statefulSet(name: string, spec: Partial<k8s.V1StatefulSetSpec> = {}): k8s.V1StatefulSet {
  return {
    metadata: { name },
    spec: {
      replicas: 3,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'db', image: 'postgres:16' }] },
      },
      ...spec,
    },
  };
}

const isReady = (p: k8s.V1Pod) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

describe('kube-sim StatefulSets and Nodes', () => {
  let c: SimClients;
  let cli: KubeCli;
  let seq = 0;

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { podReadyDelayMs: 30, nodes: 2 } });
    cli = await kubeCli(c.sim);
  });
  afterAll(() => c.sim.stop());

  async function namespace(): Promise<string> {
    const ns = `sts-${++seq}`;
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
    return ns;
  }
  const pods = async (ns: string) => (await c.core.listNamespacedPod({ namespace: ns })).items;
  const read = (ns: string, name: string) => c.apps.readNamespacedStatefulSet({ namespace: ns, name });

  it('registers the Nodes and spreads Pods over them', async () => {
    const nodes = await c.core.listNode();
    expect(nodes.items.map((n) => n.metadata?.name)).toEqual(['kube-sim-node', 'kube-sim-node-2']);
    const node = nodes.items[1]!;
    expect(node.status?.conditions?.find((x) => x.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'KubeletReady',
      message: 'kubelet is posting ready status',
    });
    expect(node.status?.allocatable).toMatchObject({ pods: '110' });
    expect(node.status?.addresses).toContainEqual({ type: 'InternalIP', address: '172.18.0.3' });
    expect(node.metadata?.labels?.['kubernetes.io/hostname']).toBe('kube-sim-node-2');
    const got = await cli.kubectl([
      'get',
      'nodes',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
    ]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toBe('kube-sim-node True\nkube-sim-node-2 True\n');

    const ns = await namespace();
    await c.apps.createNamespacedStatefulSet({
      namespace: ns,
      body: statefulSet('spread', { replicas: 4, podManagementPolicy: 'Parallel' }),
    });
    await until(async () => (await pods(ns)).filter(isReady).length === 4, '4 Pods ready');
    const placed = (await pods(ns)).map((p) => [p.spec?.nodeName, p.status?.hostIP]);
    expect(placed.filter(([n]) => n === 'kube-sim-node')).toHaveLength(2);
    expect(placed.filter(([n, ip]) => n === 'kube-sim-node-2' && ip === '172.18.0.3')).toHaveLength(2);
    const events = await c.core.listNamespacedEvent({ namespace: ns, fieldSelector: 'reason=Scheduled' });
    expect(events.items.map((e) => e.message)).toContain(
      `Successfully assigned ${ns}/spread-0 to ${(await pods(ns)).find((p) => p.metadata?.name === 'spread-0')?.spec?.nodeName}`,
    );
  });

  it('leaves a Pod Pending with FailedScheduling when no Node matches its nodeSelector', async () => {
    const ns = await namespace();
    await c.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'nowhere' },
        spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'c', image: 'nginx' }] },
      },
    });
    await until(async () => {
      const p = await c.core.readNamespacedPod({ namespace: ns, name: 'nowhere' });
      return p.status?.conditions?.some((x) => x.type === 'PodScheduled' && x.reason === 'Unschedulable');
    }, 'the Pod unschedulable');
    const events = await c.core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: 'reason=FailedScheduling',
    });
    expect(events.items[0]?.message).toBe(
      "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    );
    // Labelling a node makes it feasible: the Pod is bound on the next try.
    await c.core.patchNode(
      { name: 'kube-sim-node-2', body: { metadata: { labels: { disk: 'ssd' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await until(
      async () =>
        (await c.core.readNamespacedPod({ namespace: ns, name: 'nowhere' })).spec?.nodeName ===
        'kube-sim-node-2',
      'the Pod bound to the labelled node',
    );
  });

  it('creates Pods in order, each after the previous one is Running and Ready, with their claims', async () => {
    const ns = await namespace();
    const order: string[] = [];
    const unsubscribe = c.sim.store.subscribe((e: StoreEvent) => {
      if (e.object.kind !== 'Pod' || e.object.metadata.namespace !== ns) return;
      const ready = (e.object.status as k8s.V1PodStatus | undefined)?.conditions?.some(
        (x) => x.type === 'Ready' && x.status === 'True',
      );
      if (e.type === 'ADDED') order.push(`created ${e.object.metadata.name}`);
      else if (ready && !order.includes(`ready ${e.object.metadata.name}`))
        order.push(`ready ${e.object.metadata.name}`);
    });
    const body = statefulSet('db', {
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
    });
    await c.apps.createNamespacedStatefulSet({ namespace: ns, body });
    await until(async () => (await read(ns, 'db')).status?.readyReplicas === 3, '3 ready replicas');
    unsubscribe();
    expect(order).toEqual([
      'created db-0',
      'ready db-0',
      'created db-1',
      'ready db-1',
      'created db-2',
      'ready db-2',
    ]);

    const list = await pods(ns);
    const pod0 = list.find((p) => p.metadata?.name === 'db-0')!;
    expect(pod0.metadata?.labels).toMatchObject({
      app: 'db',
      'statefulset.kubernetes.io/pod-name': 'db-0',
      'apps.kubernetes.io/pod-index': '0',
    });
    expect(pod0.spec?.hostname).toBe('db-0');
    expect(pod0.spec?.subdomain).toBe('db');
    expect(pod0.spec?.volumes).toContainEqual({
      name: 'data',
      persistentVolumeClaim: { claimName: 'data-db-0' },
    });
    const claims = await c.core.listNamespacedPersistentVolumeClaim({ namespace: ns });
    expect(claims.items.map((x) => x.metadata?.name).sort()).toEqual(['data-db-0', 'data-db-1', 'data-db-2']);
    expect(claims.items[0]?.metadata?.labels).toEqual({ app: 'db' });

    const sts = await read(ns, 'db');
    expect(sts.spec?.podManagementPolicy).toBe('OrderedReady');
    expect(sts.spec?.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    expect(sts.spec?.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: 'Retain',
      whenScaled: 'Retain',
    });
    expect(sts.status).toMatchObject({
      observedGeneration: 1,
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
    });
    expect(sts.status?.currentRevision).toMatch(/^db-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(sts.status?.updateRevision).toBe(sts.status?.currentRevision);
    expect(pod0.metadata?.labels?.['controller-revision-hash']).toBe(sts.status?.currentRevision);

    const events = await c.core.listNamespacedEvent({ namespace: ns });
    const messages = events.items.map((e) => `${e.reason}: ${e.message}`);
    expect(messages).toContain('SuccessfulCreate: create Pod db-0 in StatefulSet db successful');
    expect(messages).toContain('SuccessfulCreate: create Claim data-db-1 Pod db-1 in StatefulSet db success');

    // Scaling down removes the highest ordinal first and keeps its claim (whenScaled: Retain).
    const scaled = await cli.kubectl(['scale', 'statefulset/db', '--replicas=1', '-n', ns]);
    expect(scaled.code, scaled.stderr).toBe(0);
    await until(async () => (await pods(ns)).length === 1, 'db scaled to 1 Pod');
    expect((await pods(ns))[0]?.metadata?.name).toBe('db-0');
    const kept = await c.core.listNamespacedPersistentVolumeClaim({ namespace: ns });
    expect(kept.items).toHaveLength(3);
    const deletions = (
      await c.core.listNamespacedEvent({ namespace: ns, fieldSelector: 'reason=SuccessfulDelete' })
    ).items;
    expect(deletions.map((e) => e.message).sort()).toEqual([
      'delete Pod db-1 in StatefulSet db successful',
      'delete Pod db-2 in StatefulSet db successful',
    ]);
  });

  it('deletes the claims of removed ordinals with whenScaled: Delete', async () => {
    const ns = await namespace();
    const body = statefulSet('cache', {
      replicas: 2,
      podManagementPolicy: 'Parallel',
      persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete', whenDeleted: 'Retain' },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
    });
    await c.apps.createNamespacedStatefulSet({ namespace: ns, body });
    await until(async () => (await read(ns, 'cache')).status?.readyReplicas === 2, '2 ready replicas');
    await c.apps.patchNamespacedStatefulSetScale(
      { namespace: ns, name: 'cache', body: { spec: { replicas: 1 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await until(async () => {
      const claims = await c.core.listNamespacedPersistentVolumeClaim({ namespace: ns });
      return claims.items.map((x) => x.metadata?.name).join() === 'data-cache-0';
    }, 'only the claim of ordinal 0 left');
  });

  it('creates Parallel Pods without waiting for readiness', async () => {
    const ns = await namespace();
    c.sim.settings.podReadyDelayMs = 60_000;
    try {
      await c.apps.createNamespacedStatefulSet({
        namespace: ns,
        body: statefulSet('par', { podManagementPolicy: 'Parallel' }),
      });
      await until(async () => (await pods(ns)).length === 3, '3 Pods created');
      expect((await pods(ns)).filter(isReady)).toHaveLength(0);
    } finally {
      c.sim.settings.podReadyDelayMs = 30;
    }
  });

  it('rolls an update from the highest ordinal down to the partition; kubectl rollout status and history follow', async () => {
    const ns = await namespace();
    await c.apps.createNamespacedStatefulSet({ namespace: ns, body: statefulSet('web') });
    const done = await cli.kubectl(['rollout', 'status', 'statefulset/web', '-n', ns, '--timeout=30s']);
    expect(done.code, done.stderr).toBe(0);
    const first = (await read(ns, 'web')).status?.currentRevision;
    // The defaulted partition (0) sends kubectl down its partitioned branch, as on a cluster.
    expect(done.stdout).toContain('partitioned roll out complete: 3 new pods have been updated...');

    const deletedOrder: string[] = [];
    const unsubscribe = c.sim.store.subscribe((e: StoreEvent) => {
      if (e.object.kind === 'Pod' && e.object.metadata.namespace === ns && e.type === 'DELETED')
        deletedOrder.push(e.object.metadata.name!);
    });
    await c.apps.patchNamespacedStatefulSet(
      {
        namespace: ns,
        name: 'web',
        body: {
          spec: {
            updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } },
            template: { spec: { containers: [{ name: 'db', image: 'postgres:17' }] } },
          },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    const partitioned = await cli.kubectl(['rollout', 'status', 'sts/web', '-n', ns, '--timeout=30s']);
    expect(partitioned.code, partitioned.stderr).toBe(0);
    expect(partitioned.stdout).toContain('partitioned roll out complete: 2 new pods have been updated...');
    let sts = await read(ns, 'web');
    expect(sts.status?.updatedReplicas).toBe(2);
    expect(sts.status?.currentRevision).toBe(first);
    expect(sts.status?.updateRevision).not.toBe(first);
    const images = Object.fromEntries(
      (await pods(ns)).map((p) => [p.metadata?.name, p.spec?.containers[0]?.image]),
    );
    expect(images).toEqual({ 'web-0': 'postgres:16', 'web-1': 'postgres:17', 'web-2': 'postgres:17' });

    await c.apps.patchNamespacedStatefulSet(
      { namespace: ns, name: 'web', body: { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    const complete = await cli.kubectl(['rollout', 'status', 'sts/web', '-n', ns, '--timeout=30s']);
    expect(complete.code, complete.stderr).toBe(0);
    unsubscribe();
    expect(deletedOrder).toEqual(['web-2', 'web-1', 'web-0']);
    sts = await read(ns, 'web');
    expect(sts.status?.currentRevision).toBe(sts.status?.updateRevision);
    expect(complete.stdout).toContain('partitioned roll out complete: 3 new pods have been updated...');

    const revisions = await c.apps.listNamespacedControllerRevision({ namespace: ns });
    expect(revisions.items.map((r) => [r.metadata?.name, r.revision]).sort()).toEqual(
      [
        [first, 1],
        [sts.status?.updateRevision, 2],
      ].sort(),
    );
    const history = await cli.kubectl(['rollout', 'history', 'statefulset/web', '-n', ns]);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);

    // Undo applies revision 1's template again, which becomes revision 3.
    const undo = await cli.kubectl(['rollout', 'undo', 'statefulset/web', '-n', ns]);
    expect(undo.code, undo.stderr).toBe(0);
    await until(
      async () => (await read(ns, 'web')).spec?.template.spec?.containers[0]?.image === 'postgres:16',
      'the template restored by undo',
    );
    const back = await cli.kubectl(['rollout', 'status', 'sts/web', '-n', ns, '--timeout=30s']);
    expect(back.code, back.stderr).toBe(0);
    const after = await c.apps.listNamespacedControllerRevision({ namespace: ns });
    expect(after.items.find((r) => r.metadata?.name === first)?.revision).toBe(3);
  });

  it('validates StatefulSets as kube-apiserver does', async () => {
    const ns = await namespace();
    const bad = await statusOf(
      c.apps.createNamespacedStatefulSet({
        namespace: ns,
        body: statefulSet('bad', {
          podManagementPolicy: 'Sometimes',
          selector: { matchLabels: { app: 'other' } },
        }),
      }),
    );
    expect(bad.code).toBe(422);
    expect(bad.message).toContain(
      `spec.podManagementPolicy: Invalid value: "Sometimes": must be 'OrderedReady' or 'Parallel'`,
    );
    expect(bad.message).toContain(
      'spec.template.metadata.labels: Invalid value: {"app":"bad"}: `selector` does not match template `labels`',
    );
    await c.apps.createNamespacedStatefulSet({ namespace: ns, body: statefulSet('ok', { replicas: 0 }) });
    const forbidden = await statusOf(
      c.apps.patchNamespacedStatefulSet(
        { namespace: ns, name: 'ok', body: { spec: { serviceName: 'other' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      ),
    );
    expect(forbidden.code).toBe(422);
    expect(forbidden.message).toContain(
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    );
  });
});
