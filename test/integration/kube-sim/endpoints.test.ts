/**
 * Endpoints and EndpointSlices the simulated controllers keep for Services with selectors, read
 * through the real @kubernetes/client-node and kubectl 1.33: ready Pods as addresses, unready ones
 * as notReadyAddresses, named target ports resolved per Pod, slices labelled with their Service
 * and owned by it, updated as Pods become ready, terminate or go.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

describe('kube-sim Endpoints and EndpointSlices', () => {
  let c: SimClients;
  let cli: KubeCli;
  let discovery: k8s.DiscoveryV1Api;

  beforeAll(async () => {
    c = await startSimWithClients({ settings: { podReadyDelayMs: 30 } });
    cli = await kubeCli(c.sim);
    discovery = c.kc.makeApiClient(k8s.DiscoveryV1Api);
  });
  afterAll(() => c.sim.stop());

  const pod = (name: string, app: string, image = 'nginx:1.27'): k8s.V1Pod => ({
    metadata: { name, labels: { app } },
    spec: { containers: [{ name: 'web', image, ports: [{ name: 'http', containerPort: 8080 }] }] },
  });

  it('lists ready Pods as addresses, resolving named target ports, in Endpoints and EndpointSlices', async () => {
    const namespace = 'ep-1';
    await c.core.createNamespace({ body: { metadata: { name: namespace } } });
    await c.core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'web', labels: { tier: 'front' } },
        spec: {
          selector: { app: 'web' },
          ports: [
            { name: 'http', port: 80, targetPort: 'http' },
            { name: 'metrics', port: 9090, targetPort: 9090 },
          ],
        },
      },
    });
    await c.core.createNamespacedPod({ namespace, body: pod('web-a', 'web') });
    await c.core.createNamespacedPod({ namespace, body: pod('web-b', 'web') });
    await c.core.createNamespacedPod({ namespace, body: pod('other', 'db') });
    const ready = await until(async () => {
      const ep = await c.core.readNamespacedEndpoints({ namespace, name: 'web' });
      return ep.subsets?.[0]?.addresses?.length === 2 && ep;
    }, 'both Pods ready in the Endpoints');
    const pods = (await c.core.listNamespacedPod({ namespace, labelSelector: 'app=web' })).items;
    const ips = pods.map((p) => p.status?.podIP).sort();
    expect(ready.metadata?.labels).toEqual({ tier: 'front' });
    expect(ready.subsets).toHaveLength(1);
    expect(ready.subsets?.[0]?.addresses?.map((a) => a.ip).sort()).toEqual(ips);
    expect(ready.subsets?.[0]?.addresses?.[0]).toMatchObject({
      nodeName: 'kube-sim-node',
      targetRef: { kind: 'Pod', namespace },
    });
    expect(ready.subsets?.[0]?.ports).toEqual([
      { name: 'http', port: 8080, protocol: 'TCP' },
      { name: 'metrics', port: 9090, protocol: 'TCP' },
    ]);

    const slices = await discovery.listNamespacedEndpointSlice({
      namespace,
      labelSelector: 'kubernetes.io/service-name=web',
    });
    expect(slices.items).toHaveLength(1);
    const slice = slices.items[0]!;
    expect(slice.metadata?.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(slice.metadata?.labels).toEqual({
      tier: 'front',
      'kubernetes.io/service-name': 'web',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    expect(slice.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Service',
      name: 'web',
      controller: true,
    });
    expect(slice.addressType).toBe('IPv4');
    expect(slice.endpoints.map((e) => e.addresses[0]).sort()).toEqual(ips);
    expect(slice.endpoints[0]?.conditions).toEqual({ ready: true, serving: true, terminating: false });
    expect(slice.ports).toEqual([
      { name: 'http', port: 8080, protocol: 'TCP' },
      { name: 'metrics', port: 9090, protocol: 'TCP' },
    ]);

    const got = await cli.kubectl([
      'get',
      'endpoints',
      'web',
      '-n',
      namespace,
      '-o',
      'jsonpath={.subsets[0].addresses[*].ip}',
    ]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout.split(' ').sort()).toEqual(ips);

    // A Pod that goes leaves both.
    await c.core.deleteNamespacedPod({ namespace, name: 'web-a' });
    await until(async () => {
      const ep = await c.core.readNamespacedEndpoints({ namespace, name: 'web' });
      return ep.subsets?.[0]?.addresses?.length === 1;
    }, 'web-a gone from the Endpoints');
    await until(async () => {
      const s = await discovery.listNamespacedEndpointSlice({
        namespace,
        labelSelector: 'kubernetes.io/service-name=web',
      });
      return s.items[0]?.endpoints.length === 1;
    }, 'web-a gone from the slice');

    // The Service deleted: its Endpoints go, and its slices with the garbage collector.
    await c.core.deleteNamespacedService({ namespace, name: 'web' });
    await until(
      async () => (await c.core.listNamespacedEndpoints({ namespace })).items.length === 0,
      'Endpoints deleted',
    );
    await until(
      async () => (await discovery.listNamespacedEndpointSlice({ namespace })).items.length === 0,
      'slices deleted',
    );
  });

  it('lists Pods that are not ready as notReadyAddresses, and a placeholder slice without Pods', async () => {
    const namespace = 'ep-2';
    await c.core.createNamespace({ body: { metadata: { name: namespace } } });
    await c.core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'api' },
        spec: { selector: { app: 'api' }, ports: [{ port: 80, targetPort: 8080 }] },
      },
    });
    const placeholder = await until(async () => {
      const s = await discovery.listNamespacedEndpointSlice({ namespace });
      return s.items.length === 1 && s.items[0];
    }, 'a placeholder slice');
    expect(placeholder.endpoints ?? []).toEqual([]);
    const empty = await c.core.readNamespacedEndpoints({ namespace, name: 'api' });
    expect(empty.subsets).toBeUndefined();

    c.sim.settings.unpullableImages = ['registry.example/broken*'];
    try {
      // The image cannot be pulled: the sandbox has its IP, the container never becomes ready.
      await c.core.createNamespacedPod({ namespace, body: pod('api-x', 'api', 'registry.example/broken:1') });
      const ep = await until(async () => {
        const e = await c.core.readNamespacedEndpoints({ namespace, name: 'api' });
        return (e.subsets?.[0]?.notReadyAddresses?.length ?? 0) > 0 && e;
      }, 'api-x among the notReadyAddresses');
      expect(ep.subsets?.[0]?.addresses).toBeUndefined();
      expect(ep.subsets?.[0]?.notReadyAddresses?.map((a) => a.targetRef?.name)).toEqual(['api-x']);
      expect(ep.subsets?.[0]?.ports).toEqual([{ port: 8080, protocol: 'TCP' }]);
      const slice = await until(async () => {
        const s = (await discovery.listNamespacedEndpointSlice({ namespace })).items[0];
        return (s?.endpoints?.length ?? 0) > 0 && s;
      }, 'api-x in the slice');
      expect(slice.ports).toEqual([{ name: '', port: 8080, protocol: 'TCP' }]);
      expect(slice.endpoints.map((e) => [e.targetRef?.name, e.conditions])).toEqual([
        ['api-x', { ready: false, serving: false, terminating: false }],
      ]);
    } finally {
      c.sim.settings.unpullableImages = [];
    }
  });

  it('serves the kubernetes Service endpoints as the API server does', async () => {
    const ep = await c.core.readNamespacedEndpoints({ namespace: 'default', name: 'kubernetes' });
    expect(ep.subsets).toEqual([
      { addresses: [{ ip: '172.18.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] },
    ]);
  });
});
