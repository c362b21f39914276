/**
 * The Events the simulated controllers, scheduler and kubelet record for a Deployment's rollout,
 * with upstream's reasons and messages, as `kubectl get events` and client-node read them.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

describe('kube-sim workload Events', () => {
  let c: SimClients;
  let cli: KubeCli;
  const ns = 'events';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { podReadyDelayMs: 20, rolloutStepDelayMs: 5 } });
    cli = await kubeCli(c.sim);
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  it('records ScalingReplicaSet, SuccessfulCreate, Scheduled and the kubelet’s container events', async () => {
    await c.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
          },
        },
      },
    });
    const status = await cli.kubectl(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=30s']);
    expect(status.code, status.stderr).toBe(0);
    const rs = (await c.apps.listNamespacedReplicaSet({ namespace: ns })).items[0]!;
    const pods = (await c.core.listNamespacedPod({ namespace: ns })).items;
    const pod = pods[0]!;
    const events = await until(async () => {
      const list = (await c.core.listNamespacedEvent({ namespace: ns })).items;
      return list.filter((e) => e.reason === 'Started').length === 2 && list;
    }, 'both containers started');
    const about = (name: string) =>
      events.filter((e) => e.involvedObject.name === name).map((e) => [e.reason, e.message]);
    expect(about('web')).toEqual([
      ['ScalingReplicaSet', `Scaled up replica set ${rs.metadata?.name} from 0 to 2`],
    ]);
    expect(about(rs.metadata!.name!).sort()).toEqual(
      pods.map((p) => ['SuccessfulCreate', `Created pod: ${p.metadata?.name}`]).sort(),
    );
    // Pulling/Pulled depend on which of the two Pods reached the node first (below).
    expect(about(pod.metadata!.name!).filter(([reason]) => !reason?.startsWith('Pull'))).toEqual([
      ['Scheduled', `Successfully assigned ${ns}/${pod.metadata?.name} to kube-sim-node`],
      ['Created', 'Created container: nginx'],
      ['Started', 'Started container nginx'],
    ]);
    const started = events.find(
      (e) => e.reason === 'Started' && e.involvedObject.name === pod.metadata?.name,
    )!;
    expect(started.involvedObject.fieldPath).toBe('spec.containers{nginx}');
    expect(started.source?.component).toBe('kubelet');
    // kube-scheduler records through events.k8s.io/v1: read through core/v1, its Event has the
    // reporting fields and eventTime, and no source, first/lastTimestamp or count.
    const scheduled = await until(async () => {
      const raw = (await (
        await fetch(`${c.sim.url}/api/v1/namespaces/${ns}/events?fieldSelector=reason%3DScheduled`)
      ).json()) as { items: Record<string, unknown>[] };
      return raw.items[0];
    }, 'the Scheduled event');
    expect(scheduled).toMatchObject({
      reportingComponent: 'default-scheduler',
      reportingInstance: 'default-scheduler-kube-sim-control-plane',
      action: 'Binding',
      eventTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });
    for (const legacy of ['source', 'firstTimestamp', 'lastTimestamp', 'count'])
      expect(scheduled).not.toHaveProperty(legacy);

    // The first Pod on the node pulls; the second finds the image there.
    const pulls = events.filter((e) => e.reason === 'Pulling' || e.reason === 'Pulled').map((e) => e.message);
    expect(pulls).toContain('Pulling image "nginx:1.27"');
    expect(pulls).toContain('Container image "nginx:1.27" already present on machine');

    // Scaling down: ScalingReplicaSet down, SuccessfulDelete.
    await c.apps.patchNamespacedDeploymentScale(
      { namespace: ns, name: 'web', body: { spec: { replicas: 1 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await until(async () => {
      const list = (
        await c.core.listNamespacedEvent({ namespace: ns, fieldSelector: 'reason=SuccessfulDelete' })
      ).items;
      return list.length === 1;
    }, 'a SuccessfulDelete event');
    const got = await cli.kubectl([
      'get',
      'events',
      '-n',
      ns,
      '--field-selector',
      'reason=ScalingReplicaSet',
      '-o',
      'jsonpath={range .items[*]}{.message}{"\\n"}{end}',
    ]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain(`Scaled down replica set ${rs.metadata?.name} from 2 to 1\n`);
  });
});
