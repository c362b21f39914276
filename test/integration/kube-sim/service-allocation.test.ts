/**
 * Service clusterIP and node port allocation as kube-apiserver does it
 * (pkg/registry/core/service/storage/alloc.go, ipallocator, portallocator): random free values,
 * requested ones in use or out of range refused with upstream's 422 texts, released on delete
 * and on a type change; and the `/scale` subresource under dryRun=All.
 */
import type * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';

const ns = 'default';
const port = (p: number, nodePort?: number) => ({
  name: `p${p}`,
  port: p,
  ...(nodePort ? { nodePort } : {}),
});

describe('kube-sim Service allocation', () => {
  let c: SimClients;
  const create = (name: string, spec: k8s.V1ServiceSpec) =>
    c.core.createNamespacedService({ namespace: ns, body: { metadata: { name }, spec } });

  beforeAll(async () => {
    c = await startSimWithClients({ controllers: false });
  });
  afterAll(() => c.sim.stop());

  it('allocates clusterIPs at random in 10.96.0.0/12, all different', async () => {
    const ips: string[] = [];
    for (let i = 0; i < 6; i++) ips.push((await create(`r${i}`, { ports: [port(80)] })).spec!.clusterIP!);
    expect(new Set(ips).size).toBe(6);
    for (const ip of ips) {
      const [a, b] = ip.split('.').map(Number);
      expect(a).toBe(10);
      expect(b! >= 96 && b! <= 111).toBe(true);
    }
    // Not handed out in order: sequential allocation would give consecutive addresses.
    const last = ips.map((ip) => Number(ip.split('.')[3]));
    expect(last.every((n, i) => i === 0 || n === last[i - 1]! + 1)).toBe(false);
  });

  it('refuses a requested clusterIP in use or outside the range, and reuses one after delete', async () => {
    await create('dns', { clusterIP: '10.96.0.10', ports: [port(53)] });
    const taken = await statusOf(create('dns2', { clusterIP: '10.96.0.10', ports: [port(53)] }));
    expect(taken.code).toBe(422);
    expect(taken.message).toBe(
      'Service "dns2" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    );
    const outside = await statusOf(create('far', { clusterIP: '10.200.0.5', ports: [port(53)] }));
    expect(outside.message).toBe(
      'Service "far" is invalid: spec.clusterIPs: Invalid value: []string{"10.200.0.5"}: failed to allocate IP 10.200.0.5: the provided IP (10.200.0.5) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    );
    const kubernetes = await statusOf(create('k', { clusterIP: '10.96.0.1', ports: [port(443)] }));
    expect(kubernetes.message).toContain('failed to allocate IP 10.96.0.1: provided IP is already allocated');
    await c.core.deleteNamespacedService({ namespace: ns, name: 'dns' });
    expect((await create('dns2', { clusterIP: '10.96.0.10', ports: [port(53)] })).spec!.clusterIP).toBe(
      '10.96.0.10',
    );
  });

  it('allocates node ports in 30000-32767 for NodePort and LoadBalancer Services', async () => {
    const np = await create('np', { type: 'NodePort', ports: [port(80), port(443)] });
    const lb = await create('lb', {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      ports: [port(80)],
    });
    const ports = [
      ...np.spec!.ports!.map((p) => p.nodePort!),
      lb.spec!.ports![0]!.nodePort!,
      lb.spec!.healthCheckNodePort!,
    ];
    expect(new Set(ports).size).toBe(4);
    for (const p of ports) expect(p >= 30000 && p <= 32767).toBe(true);
    const plain = await create('plain', { ports: [port(80)] });
    expect(plain.spec!.ports![0]!.nodePort).toBeUndefined();
    expect(plain.spec!.healthCheckNodePort).toBeUndefined();
  });

  it('refuses a requested node port in use or outside the range', async () => {
    await create('fixed', { type: 'NodePort', ports: [port(80, 30080)] });
    const taken = await statusOf(create('fixed2', { type: 'NodePort', ports: [port(80, 30080)] }));
    expect(taken.code).toBe(422);
    expect(taken.message).toBe(
      'Service "fixed2" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
    );
    const outside = await statusOf(create('fixed3', { type: 'NodePort', ports: [port(80, 40000)] }));
    expect(outside.message).toBe(
      'Service "fixed3" is invalid: spec.ports[0].nodePort: Invalid value: 40000: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
  });

  it('releases node ports when the type changes and when the Service goes', async () => {
    await create('moving', { type: 'NodePort', ports: [port(80, 31000)] });
    expect((await statusOf(create('other', { type: 'NodePort', ports: [port(80, 31000)] }))).code).toBe(422);
    const changed = await c.core.patchNamespacedService({
      namespace: ns,
      name: 'moving',
      body: [{ op: 'replace', path: '/spec/type', value: 'ClusterIP' }],
    });
    expect(changed.spec!.ports![0]!.nodePort).toBeUndefined();
    expect(
      (await create('other', { type: 'NodePort', ports: [port(80, 31000)] })).spec!.ports![0]!.nodePort,
    ).toBe(31000);
    await c.core.deleteNamespacedService({ namespace: ns, name: 'other' });
    expect(
      (await create('third', { type: 'NodePort', ports: [port(80, 31000)] })).spec!.ports![0]!.nodePort,
    ).toBe(31000);
  });

  it('a refused write holds nothing, and a dry-run create holds nothing', async () => {
    await c.core.createNamespacedService({
      namespace: ns,
      dryRun: 'All',
      body: {
        metadata: { name: 'dry' },
        spec: { clusterIP: '10.96.0.77', type: 'NodePort', ports: [port(80, 30777)] },
      },
    });
    const real = await create('wet', { clusterIP: '10.96.0.77', type: 'NodePort', ports: [port(80, 30777)] });
    expect(real.spec!.clusterIP).toBe('10.96.0.77');
  });

  it('answers a dry-run /scale write with the Scale it would make, storing nothing', async () => {
    await c.apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'c', image: 'nginx' }] },
          },
        },
      },
    });
    const before = await c.apps.readNamespacedDeployment({ namespace: ns, name: 'web' });
    const scale = await c.apps.replaceNamespacedDeploymentScale({
      namespace: ns,
      name: 'web',
      dryRun: 'All',
      body: { metadata: { name: 'web', namespace: ns }, spec: { replicas: 5 } },
    });
    expect(scale.kind).toBe('Scale');
    expect(scale.spec!.replicas).toBe(5);
    const patched = await c.apps.patchNamespacedDeploymentScale({
      namespace: ns,
      name: 'web',
      dryRun: 'All',
      body: [{ op: 'replace', path: '/spec/replicas', value: 7 }],
    });
    expect(patched.kind).toBe('Scale');
    expect(patched.spec!.replicas).toBe(7);
    const after = await c.apps.readNamespacedDeployment({ namespace: ns, name: 'web' });
    expect(after.spec!.replicas).toBe(1);
    expect(after.metadata!.resourceVersion).toBe(before.metadata!.resourceVersion);
  });
});
