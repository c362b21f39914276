/**
 * The simulator's admin API over HTTP (a path no real client uses): request log and counters,
 * fault injection (errors, latency, connection resets; per resource or per object), requests in
 * flight, forced compaction and dropped watches.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimClients, startSimWithClients, statusOf } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';

describe('kube-sim admin API', () => {
  let c: SimClients;
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${c.sim.url}/__sim/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }).then((r) => r.json() as Promise<unknown>);

  beforeAll(async () => {
    // API machinery only: no workload controller writes in the background.
    c = await startSimWithClients({ controllers: false });
  });
  afterAll(() => c.sim.stop());

  it('reports and resets the request log, without logging itself', async () => {
    await admin('DELETE', 'requests');
    await c.core.listNamespace();
    await c.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'x' } } });
    expect(await admin('GET', 'requests/summary')).toMatchObject({
      total: 2,
      reads: 1,
      writes: 1,
      byVerb: { list: 1, create: 1 },
    });
    const entries = (await admin('GET', 'requests?verb=create')) as { resource: string; status: number }[];
    expect(entries).toEqual([expect.objectContaining({ resource: '/configmaps', status: 201 })]);
    await admin('DELETE', 'requests');
    expect(await admin('GET', 'requests/summary')).toMatchObject({ total: 0 });
  });

  it('injects errors, latency and connection resets, then clears them', async () => {
    await admin('PUT', 'faults', [
      { verb: 'get', resource: '/configmaps', errorRate: 1, status: 503, limit: 2 },
    ]);
    expect((await statusOf(c.core.readNamespacedConfigMap({ namespace: 'default', name: 'x' }))).code).toBe(
      503,
    );
    expect((await statusOf(c.core.readNamespacedConfigMap({ namespace: 'default', name: 'x' }))).code).toBe(
      503,
    );
    expect((await c.core.readNamespacedConfigMap({ namespace: 'default', name: 'x' })).metadata?.name).toBe(
      'x',
    );

    await admin('PUT', 'faults', [{ verb: 'get', latencyMs: 300 }]);
    const started = Date.now();
    await c.core.readNamespacedConfigMap({ namespace: 'default', name: 'x' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);

    await admin('PUT', 'faults', [{ verb: 'list', resource: '/secrets', resetRate: 1, limit: 1 }]);
    await expect(c.core.listNamespacedSecret({ namespace: 'default' })).rejects.toThrow();
    expect((await c.core.listNamespacedSecret({ namespace: 'default' })).items).toEqual([]);
    expect(await admin('DELETE', 'faults')).toEqual([]);
  });

  it('delays one named object’s write, shows it in flight, then serves it with its body', async () => {
    await admin('PUT', 'faults', [
      { verb: 'create', resource: '/configmaps', namespace: 'default', name: 'slow', latencyMs: 60_000 },
      { verb: 'patch', resource: '/configmaps', namespace: 'default', name: 'held', latencyMs: 400 },
    ]);
    // Another object of the same kind is not delayed (the rule names one object).
    await c.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'held' } } });
    const patching = c.core.patchNamespacedConfigMap(
      { namespace: 'default', name: 'held', body: { data: { kept: 'yes' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    const filter = { verb: 'patch', name: 'held' } as const;
    await until(() => c.sim.requests.inFlight(filter).length === 1 || undefined, 'the patch in flight');
    expect(c.sim.requests.entries(filter)).toEqual([]);
    // Held past the request's arrival, its body was still read: the patch applies.
    expect((await patching).data).toEqual({ kept: 'yes' });
    expect(c.sim.requests.inFlight(filter)).toEqual([]);
    expect(c.sim.requests.entries(filter)).toEqual([expect.objectContaining({ status: 200 })]);
    expect(await admin('DELETE', 'faults')).toEqual([]);
  });

  it('a write delayed by latency keeps its body, and a write refused before its body was read leaves the connection usable', async () => {
    await admin('PUT', 'faults', [
      { verb: 'patch', resource: '/configmaps', name: 'x', latencyMs: 200, limit: 1 },
      { verb: 'create', resource: '/configmaps', errorRate: 1, status: 500, limit: 1 },
    ]);
    const patched = await c.core.patchNamespacedConfigMap(
      { namespace: 'default', name: 'x', body: { data: { k: 'v' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    expect(patched.data).toEqual({ k: 'v' });
    expect(c.sim.faults.matched()).toEqual([1, 0]);
    const big = { metadata: { name: 'big' }, data: { k: 'x'.repeat(200_000) } };
    expect((await statusOf(c.core.createNamespacedConfigMap({ namespace: 'default', body: big }))).code).toBe(
      500,
    );
    expect((await c.core.createNamespacedConfigMap({ namespace: 'default', body: big })).metadata?.name).toBe(
      'big',
    );
    expect(await admin('DELETE', 'faults')).toEqual([]);
  });

  it('compacts history and drops watches on request', async () => {
    const rv = c.sim.store.currentRv;
    expect(await admin('POST', 'compact')).toEqual({ compactedAt: rv });
    expect(await admin('POST', 'drop-watches')).toEqual({ dropped: 0 });
    expect(await admin('GET', 'stats')).toMatchObject({ resourceVersion: rv });
  });
});
