/**
 * DaemonSets through the real @kubernetes/client-node and kubectl 1.33: one Pod per Node (and
 * only on Nodes matching the template's nodeSelector), Pods following Nodes as they come and go,
 * rolling updates within maxUnavailable, status and `kubectl rollout status ds`.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreEvent } from '../../../infra/kube-sim/store/object-store.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

function daemonSet(name: string, podSpec: Partial<k8s.V1PodSpec> = {}): k8s.V1DaemonSet {
  return {
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'agent', image: 'fluent-bit:3.0' }], ...podSpec },
      },
    },
  };
}

describe('kube-sim DaemonSets', () => {
  let c: SimClients;
  let cli: KubeCli;
  let seq = 0;

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { podReadyDelayMs: 30, nodes: 3 } });
    cli = await kubeCli(c.sim);
  });
  afterAll(() => c.sim.stop());

  async function namespace(): Promise<string> {
    const ns = `ds-${++seq}`;
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
    return ns;
  }
  const pods = async (ns: string) =>
    (await c.core.listNamespacedPod({ namespace: ns })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const read = (ns: string, name: string) => c.apps.readNamespacedDaemonSet({ namespace: ns, name });

  it('runs one Pod on every Node and reports it as kubectl rollout status expects', async () => {
    const ns = await namespace();
    await c.apps.createNamespacedDaemonSet({ namespace: ns, body: daemonSet('agent') });
    const status = await cli.kubectl(['rollout', 'status', 'daemonset/agent', '-n', ns, '--timeout=30s']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('daemon set "agent" successfully rolled out');
    const list = await pods(ns);
    expect(list.map((p) => p.spec?.nodeName).sort()).toEqual([
      'kube-sim-node',
      'kube-sim-node-2',
      'kube-sim-node-3',
    ]);
    const ds = await read(ns, 'agent');
    expect(ds.spec?.updateStrategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
    });
    expect(ds.spec?.revisionHistoryLimit).toBe(10);
    expect(ds.status).toEqual({
      currentNumberScheduled: 3,
      numberMisscheduled: 0,
      desiredNumberScheduled: 3,
      numberReady: 3,
      observedGeneration: 1,
      updatedNumberScheduled: 3,
      numberAvailable: 3,
    });
    const pod = list[0]!;
    expect(pod.metadata?.name).toMatch(/^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(pod.metadata?.labels?.['pod-template-generation']).toBe('1');
    expect(pod.metadata?.labels?.['controller-revision-hash']).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(
      pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
    ).toEqual([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [pod.spec?.nodeName] }] }]);
    expect(pod.spec?.tolerations).toContainEqual({
      key: 'node.kubernetes.io/unschedulable',
      operator: 'Exists',
      effect: 'NoSchedule',
    });
    const events = await c.core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: 'reason=SuccessfulCreate',
    });
    expect(events.items.map((e) => e.message)).toContain(`Created pod: ${pod.metadata?.name}`);
  });

  it('follows Nodes: a new Node gets a Pod, a removed one loses it', async () => {
    const ns = await namespace();
    await c.apps.createNamespacedDaemonSet({ namespace: ns, body: daemonSet('follow') });
    await until(async () => (await read(ns, 'follow')).status?.numberAvailable === 3, '3 available');
    c.sim.settings.nodes = 4;
    try {
      await until(
        async () => (await pods(ns)).some((p) => p.spec?.nodeName === 'kube-sim-node-4'),
        'a Pod on node 4',
      );
      await until(async () => (await read(ns, 'follow')).status?.desiredNumberScheduled === 4, '4 desired');
    } finally {
      c.sim.settings.nodes = 3;
    }
    await until(async () => (await pods(ns)).length === 3, 'the Pod of node 4 gone');
    await until(async () => (await read(ns, 'follow')).status?.desiredNumberScheduled === 3, '3 desired');
  });

  it('runs only on Nodes matching the nodeSelector', async () => {
    const ns = await namespace();
    await c.apps.createNamespacedDaemonSet({
      namespace: ns,
      body: daemonSet('gpu', { nodeSelector: { accelerator: 'gpu' } }),
    });
    await until(async () => (await read(ns, 'gpu')).status?.observedGeneration === 1, 'status observed');
    expect((await read(ns, 'gpu')).status?.desiredNumberScheduled).toBe(0);
    await c.core.patchNode(
      { name: 'kube-sim-node-3', body: { metadata: { labels: { accelerator: 'gpu' } } } },
      merge,
    );
    try {
      await until(async () => (await read(ns, 'gpu')).status?.numberAvailable === 1, 'one available');
      expect((await pods(ns)).map((p) => p.spec?.nodeName)).toEqual(['kube-sim-node-3']);
    } finally {
      await c.core.patchNode(
        { name: 'kube-sim-node-3', body: { metadata: { labels: { accelerator: null } } } },
        merge,
      );
    }
    await until(async () => (await pods(ns)).length === 0, 'the Pod removed with the label');
  });

  it('rolls an update one Node at a time', async () => {
    const ns = await namespace();
    await c.apps.createNamespacedDaemonSet({ namespace: ns, body: daemonSet('roll') });
    await until(async () => (await read(ns, 'roll')).status?.numberAvailable === 3, '3 available');
    let outstanding = 0;
    let most = 0;
    const readySeen = new Set<string>();
    const unsubscribe = c.sim.store.subscribe((e: StoreEvent) => {
      if (e.object.kind !== 'Pod' || e.object.metadata.namespace !== ns) return;
      const image = (e.object.spec as k8s.V1PodSpec).containers[0]?.image;
      const ready = (e.object.status as k8s.V1PodStatus | undefined)?.conditions?.some(
        (x) => x.type === 'Ready' && x.status === 'True',
      );
      if (e.type === 'DELETED' && image === 'fluent-bit:3.0') outstanding++;
      if (
        e.type !== 'DELETED' &&
        image === 'fluent-bit:3.1' &&
        ready &&
        !readySeen.has(e.object.metadata.name!)
      ) {
        readySeen.add(e.object.metadata.name!);
        outstanding--;
      }
      most = Math.max(most, outstanding);
    });
    await c.apps.patchNamespacedDaemonSet(
      {
        namespace: ns,
        name: 'roll',
        body: { spec: { template: { spec: { containers: [{ name: 'agent', image: 'fluent-bit:3.1' }] } } } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    const status = await cli.kubectl(['rollout', 'status', 'ds/roll', '-n', ns, '--timeout=30s']);
    unsubscribe();
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('daemon set "roll" successfully rolled out');
    expect(most).toBe(1);
    expect(readySeen.size).toBe(3);
    expect((await pods(ns)).map((p) => p.metadata?.labels?.['pod-template-generation'])).toEqual([
      '2',
      '2',
      '2',
    ]);
    const history = await cli.kubectl(['rollout', 'history', 'daemonset/roll', '-n', ns]);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
  });

  it('validates DaemonSets as kube-apiserver does', async () => {
    const ns = await namespace();
    const body = daemonSet('bad');
    body.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } };
    const bad = await statusOf(c.apps.createNamespacedDaemonSet({ namespace: ns, body }));
    expect(bad.code).toBe(422);
    expect(bad.message).toBe(
      'DaemonSet.apps "bad" is invalid: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero',
    );
  });
});
