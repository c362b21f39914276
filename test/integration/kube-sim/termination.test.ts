/**
 * Graceful Pod deletion through real kubectl 1.33 and client-node: a DELETE leaves the Pod
 * Terminating with deletionTimestamp and deletionGracePeriodSeconds (terminationGracePeriodSeconds,
 * or --grace-period) until the kubelet has stopped its containers and deleted it; --force
 * --grace-period=0 removes it at once; an unscheduled Pod goes at once; finalizers still hold a
 * Pod whose containers have stopped.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreEvent } from '../../../infra/kube-sim/store/object-store.ts';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

describe('kube-sim graceful Pod termination', () => {
  let c: SimClients;
  let cli: KubeCli;
  const ns = 'term';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { podReadyDelayMs: 20 } });
    cli = await kubeCli(c.sim);
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  /** The store events of one Pod, from now on. */
  function record(name: string): { events: StoreEvent[]; stop: () => void } {
    const events: StoreEvent[] = [];
    const stop = c.sim.store.subscribe((e) => {
      if (e.object.kind === 'Pod' && e.object.metadata.namespace === ns && e.object.metadata.name === name)
        events.push(e);
    });
    return { events, stop };
  }

  async function runningPod(
    name: string,
    spec: Partial<k8s.V1PodSpec> = {},
    meta: Partial<k8s.V1ObjectMeta> = {},
  ) {
    await c.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name, ...meta },
        spec: { containers: [{ name: 'app', image: 'busybox', args: ['sleep', 'infinity'] }], ...spec },
      },
    });
    await until(async () => {
      const p = await c.core.readNamespacedPod({ namespace: ns, name });
      return p.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True');
    }, `${name} ready`);
  }

  const gone = (name: string) =>
    until(async () => {
      try {
        await c.core.readNamespacedPod({ namespace: ns, name });
        return false;
      } catch (err) {
        return (err as { code?: number }).code === 404;
      }
    }, `${name} deleted`);

  it('keeps a deleted Pod Terminating with its grace period until the kubelet has stopped it', async () => {
    await runningPod('graceful');
    const seen = record('graceful');
    const deleted = await cli.kubectl(['delete', 'pod', 'graceful', '-n', ns]);
    seen.stop();
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe('pod "graceful" deleted\n');
    const terminating = seen.events.find((e) => e.type === 'MODIFIED' && e.object.metadata.deletionTimestamp);
    expect(terminating?.object.metadata.deletionGracePeriodSeconds).toBe(30);
    const deadline = Date.parse(terminating!.object.metadata.deletionTimestamp!);
    const created = Date.parse(terminating!.object.metadata.creationTimestamp!);
    expect(deadline - created).toBeGreaterThanOrEqual(29_000);
    expect(seen.events.at(-1)?.type).toBe('DELETED');
    const killing = await c.core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: 'involvedObject.name=graceful',
    });
    expect(killing.items.map((e) => [e.reason, e.message])).toContainEqual([
      'Killing',
      'Stopping container app',
    ]);
  });

  it('takes --grace-period, and --force --grace-period=0 deletes at once', async () => {
    await runningPod('short', { terminationGracePeriodSeconds: 60 });
    const seen = record('short');
    const deleted = await cli.kubectl(['delete', 'pod', 'short', '-n', ns, '--grace-period=5']);
    seen.stop();
    expect(deleted.code, deleted.stderr).toBe(0);
    const terminating = seen.events.find((e) => e.object.metadata.deletionTimestamp);
    expect(terminating?.object.metadata.deletionGracePeriodSeconds).toBe(5);

    await runningPod('forced');
    const forced = record('forced');
    const result = await cli.kubectl(['delete', 'pod', 'forced', '-n', ns, '--force', '--grace-period=0']);
    forced.stop();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated.',
    );
    expect(result.stdout).toBe('pod "forced" force deleted\n');
    expect(forced.events.map((e) => e.type)).toEqual(['DELETED']);
  });

  it('deletes an unscheduled Pod at once', async () => {
    await c.core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'gated' },
        spec: {
          schedulingGates: [{ name: 'example.com/wait' }],
          containers: [{ name: 'c', image: 'nginx' }],
        },
      },
    });
    const seen = record('gated');
    await c.core.deleteNamespacedPod({ namespace: ns, name: 'gated' });
    seen.stop();
    expect(seen.events.map((e) => e.type)).toEqual(['DELETED']);
  });

  it('leaves a Pod held by a finalizer with its containers stopped', async () => {
    await runningPod('held', {}, { finalizers: ['example.com/hold'] });
    await c.core.deleteNamespacedPod({ namespace: ns, name: 'held' });
    await until(async () => {
      const p = await c.core.readNamespacedPod({ namespace: ns, name: 'held' });
      return p.metadata?.deletionGracePeriodSeconds === 0;
    }, 'the kubelet’s final delete');
    const uid = (await c.core.readNamespacedPod({ namespace: ns, name: 'held' })).metadata!.uid!;
    expect(c.sim.runtime.running(uid, 'app')).toBeUndefined();
    await c.core.patchNamespacedPod(
      { namespace: ns, name: 'held', body: [{ op: 'remove', path: '/metadata/finalizers' }] },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    await gone('held');
  });
});
