/**
 * API requests share connections: a TCP relay in front of kube-sim counts the connections the
 * worker's clients (createKubeClients: client-node through the measured HTTP library) open.
 * client-node alone opens one per request (a new Agent each time).
 */

import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sim, startSim } from '../../../infra/kube-sim/sim.ts';
import { createKubeClients } from '../../../src/kube/client.ts';

let sim: Sim;
let relay: Server;
let connections = 0;

beforeAll(async () => {
  sim = await startSim({ controllers: false });
  relay = createServer((client) => {
    connections++;
    const upstream = createConnection({ host: '127.0.0.1', port: sim.port });
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  relay?.close();
  await sim?.stop();
});

describe('connection reuse', () => {
  it('sends sequential and concurrent API requests over a few kept-alive connections', async () => {
    const port = (relay.address() as AddressInfo).port;
    const kubeconfigYaml = sim.kubeconfig().replace(sim.url, `http://127.0.0.1:${port}`);
    const k = createKubeClients({ kubeconfigYaml });
    connections = 0;
    for (let i = 0; i < 20; i++) {
      await k.core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: `cm-${i}` }, data: { i: String(i) } },
      });
      expect((await k.core.readNamespacedConfigMap({ name: `cm-${i}`, namespace: 'default' })).data).toEqual({
        i: String(i),
      });
    }
    // 40 requests one after the other: one connection (client-node alone: 40).
    expect(connections).toBe(1);
    // Generic object API and typed clients of the same kubeconfig share the pool; 8 at once need
    // at most 8 connections, and the one kept from before is among them.
    connections = 0;
    const names = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        k.objects.read({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, namespace: 'default' },
        }),
      ),
    );
    expect(names.map((o) => o.metadata?.name)).toEqual(Array.from({ length: 8 }, (_, i) => `cm-${i}`));
    expect(connections).toBeLessThanOrEqual(7);
    const before = connections;
    for (let i = 0; i < 10; i++) await k.core.listNamespacedConfigMap({ namespace: 'default' });
    expect(connections).toBe(before);
  });
});
