/**
 * A Deployment rollout's Events read through events.k8s.io/v1: the controllers, scheduler and
 * kubelet record core/v1 Events (their legacy recorders), and the events.k8s.io/v1 API shows the
 * same stored objects converted (pkg/apis/events/v1/conversion.go), on list, watch, kubectl's
 * table (pkg/printers/internalversion/printers.go eventColumnDefinitions) and discovery
 * (pkg/registry/events/rest: the core event storage, so the verbs and short name of core's).
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

const ns = 'rollout-events';

/** How an Event read through either API is identified: one stored object, one identity. */
const identity = (e: { metadata?: k8s.V1ObjectMeta }) =>
  `${e.metadata?.name} ${e.metadata?.uid} ${e.metadata?.resourceVersion}`;

/** kubectl's table header cells (two or more spaces between them). */
const header = (stdout: string) =>
  stdout
    .split('\n')[0]!
    .trim()
    .split(/\s{2,}/);

describe('events.k8s.io/v1 Events of a Deployment rollout', () => {
  let c: SimClients;
  let cli: KubeCli;
  let events: k8s.EventsV1Api;
  /** What the events.k8s.io/v1 watch delivered while the rollout ran. */
  const watched: { type: string; object: k8s.EventsV1Event & Record<string, unknown> }[] = [];
  let rsName = '';

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { podReadyDelayMs: 20, rolloutStepDelayMs: 5 } });
    cli = await kubeCli(c.sim);
    events = c.kc.makeApiClient(k8s.EventsV1Api);
    await c.core.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(() => c.sim.stop());

  it('a watch through events.k8s.io/v1 sees the controllers’ events as they are recorded, converted', async () => {
    const watch = await new k8s.Watch(c.kc).watch(
      `/apis/events.k8s.io/v1/namespaces/${ns}/events`,
      { resourceVersion: String(c.sim.store.currentRv) },
      (type, object) => watched.push({ type, object }),
      () => undefined,
    );
    try {
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
      await until(
        () => watched.filter((e) => e.object.reason === 'Started').length === 2 || undefined,
        'both containers’ Started events on the events.k8s.io/v1 watch',
      );
    } finally {
      watch.abort();
    }
    rsName = (await c.apps.listNamespacedReplicaSet({ namespace: ns })).items[0]!.metadata!.name!;
    for (const { object } of watched) {
      expect(object.apiVersion).toBe('events.k8s.io/v1');
      expect(object.kind).toBe('Event');
      for (const core of ['message', 'involvedObject', 'source', 'firstTimestamp', 'lastTimestamp', 'count'])
        expect(object, `${object.reason} has no core/v1 field ${core}`).not.toHaveProperty(core);
    }
    const reasons = watched.filter((e) => e.type === 'ADDED').map((e) => e.object.reason);
    for (const reason of [
      'ScalingReplicaSet',
      'SuccessfulCreate',
      'Scheduled',
      'Pulled',
      'Created',
      'Started',
    ])
      expect(reasons).toContain(reason);

    const scaling = watched.find((e) => e.object.reason === 'ScalingReplicaSet')!.object;
    expect(scaling).toMatchObject({
      type: 'Normal',
      note: `Scaled up replica set ${rsName} from 0 to 2`,
      regarding: { kind: 'Deployment', namespace: ns, name: 'web', apiVersion: 'apps/v1' },
      deprecatedSource: { component: 'deployment-controller' },
      deprecatedCount: 1,
      reportingController: 'deployment-controller',
    });
    const created = watched.filter((e) => e.object.reason === 'SuccessfulCreate').map((e) => e.object);
    expect(created).toHaveLength(2);
    for (const event of created) {
      expect(event.regarding).toMatchObject({ kind: 'ReplicaSet', name: rsName });
      expect(event.note).toMatch(new RegExp(`^Created pod: ${rsName}-`));
    }
    const scheduled = watched.find((e) => e.object.reason === 'Scheduled')!.object;
    expect(scheduled.regarding?.kind).toBe('Pod');
    expect(scheduled.note).toBe(`Successfully assigned ${ns}/${scheduled.regarding?.name} to kube-sim-node`);
    // The scheduler records through this API (client-go tools/events), so no deprecated fields.
    expect(scheduled).toMatchObject({
      reportingController: 'default-scheduler',
      reportingInstance: 'default-scheduler-kube-sim-control-plane',
      action: 'Binding',
    });
    expect(scheduled).not.toHaveProperty('deprecatedSource');
    expect(scheduled).not.toHaveProperty('deprecatedCount');
    const started = watched.find((e) => e.object.reason === 'Started')!.object;
    expect(started).toMatchObject({
      note: 'Started container nginx',
      regarding: { kind: 'Pod', fieldPath: 'spec.containers{nginx}' },
      // The kubelet records with its node as the source's host (cmd/kubelet/app/server.go), and
      // the legacy recorder copies it into reportingInstance (tools/record/event.go).
      deprecatedSource: { component: 'kubelet', host: 'kube-sim-node' },
      reportingController: 'kubelet',
      reportingInstance: 'kube-sim-node',
    });
  });

  it('lists the same Events through both APIs: names, uids and resourceVersions', async () => {
    const view = await events.listNamespacedEvent({ namespace: ns });
    const core = await c.core.listNamespacedEvent({ namespace: ns });
    expect(view.items.map(identity)).toEqual(core.items.map(identity));
    expect(view.items.length).toBeGreaterThanOrEqual(10);
    // The watch saw every one of them, in the view's shape.
    expect(view.items.map(identity).sort()).toEqual(
      watched
        .filter((e) => e.type === 'ADDED')
        .map((e) => identity(e.object))
        .sort(),
    );
    // Across namespaces too, and by upstream's events.k8s.io field labels.
    const all = await events.listEventForAllNamespaces({ fieldSelector: `regarding.name=${rsName}` });
    expect(all.items.map((e) => e.reason)).toEqual(['SuccessfulCreate', 'SuccessfulCreate']);
  });

  it('kubectl get events.events.k8s.io -A prints upstream’s event columns for them', async () => {
    const got = await cli.kubectl(['get', 'events.events.k8s.io', '-A']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stderr).toBe('');
    expect(header(got.stdout)).toEqual(['NAMESPACE', 'LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(got.stdout).toMatch(
      new RegExp(
        `${ns}\\s+\\S+\\s+Normal\\s+ScalingReplicaSet\\s+deployment/web\\s+Scaled up replica set ${rsName} from 0 to 2`,
      ),
    );
    expect(got.stdout).toMatch(/Normal\s+Started\s+pod\/web-\S+\s+Started container nginx/);
    const wide = await cli.kubectl(['get', 'events.events.k8s.io', '-n', ns, '-o', 'wide']);
    expect(wide.code, wide.stderr).toBe(0);
    expect(header(wide.stdout)).toEqual([
      'LAST SEEN',
      'TYPE',
      'REASON',
      'OBJECT',
      'SUBOBJECT',
      'SOURCE',
      'MESSAGE',
      'FIRST SEEN',
      'COUNT',
      'NAME',
    ]);
    expect(wide.stdout).toMatch(
      /Started\s+pod\/web-\S+\s+spec\.containers\{nginx\}\s+kubelet, kube-sim-node/,
    );
    // formatEventSource: the reporting controller and instance when there is no source; COUNT 1.
    expect(wide.stdout).toMatch(
      /Scheduled\s+pod\/web-\S+\s+default-scheduler, default-scheduler-kube-sim-control-plane\s+Successfully assigned \S+ to kube-sim-node\s+\S+\s+1\s+web-/,
    );
  });

  it('kubectl get --raw /apis/events.k8s.io/v1 lists the events resource as upstream discovery does', async () => {
    const got = await cli.kubectl(['get', '--raw', '/apis/events.k8s.io/v1']);
    expect(got.code, got.stderr).toBe(0);
    const list = JSON.parse(got.stdout);
    expect(list).toMatchObject({ kind: 'APIResourceList', groupVersion: 'events.k8s.io/v1' });
    expect(list.resources).toEqual([
      {
        name: 'events',
        singularName: 'event',
        namespaced: true,
        kind: 'Event',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['ev'],
        storageVersionHash: 'r2yiGXH7wu8=',
      },
    ]);
    const group = JSON.parse((await cli.kubectl(['get', '--raw', '/apis/events.k8s.io'])).stdout);
    expect(group).toMatchObject({
      kind: 'APIGroup',
      name: 'events.k8s.io',
      versions: [{ groupVersion: 'events.k8s.io/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'events.k8s.io/v1', version: 'v1' },
    });
    // kubectl explain reads the group's OpenAPI v3 document (kube-sim serves no /openapi/v2).
    const explain = await cli.kubectl(['explain', 'events.note', '--api-version=events.k8s.io/v1']);
    expect(explain.code, explain.stderr).toBe(0);
    expect(explain.stdout).toContain('FIELD: note <string>');
    const resources = await cli.kubectl(['api-resources', '--api-group=events.k8s.io', '--no-headers']);
    expect(resources.stdout.trim().split(/\s+/)).toEqual([
      'events',
      'ev',
      'events.k8s.io/v1',
      'true',
      'Event',
    ]);
  });
});
