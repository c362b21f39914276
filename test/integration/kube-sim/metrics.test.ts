/**
 * `/metrics` in Prometheus text format with kube-apiserver's request metrics
 * (apiserver_request_total, apiserver_request_duration_seconds), as `kubectl get --raw /metrics`
 * reads them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeCli, kubeCli } from '../../helpers/kubectl.ts';
import { type SimClients, startSimWithClients } from '../../helpers/sim.ts';

/** `name{labels} value` lines of one metric, labels parsed. */
function samples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const out: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const l of m[2]!.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

describe('kube-sim /metrics', () => {
  let c: SimClients;
  let cli: KubeCli;

  beforeAll(async () => {
    c = await startSimWithClients({ controllers: false });
    cli = await kubeCli(c.sim);
  });
  afterAll(() => c.sim.stop());

  it('counts requests by verb, resource, scope, dry run and code', async () => {
    await c.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'm1' } } });
    await c.core.createNamespacedConfigMap({
      namespace: 'default',
      dryRun: 'All',
      body: { metadata: { name: 'm2' } },
    });
    await c.core.readNamespacedConfigMap({ namespace: 'default', name: 'm1' });
    await c.core.readNamespacedConfigMap({ namespace: 'default', name: 'nope' }).catch(() => undefined);
    await c.core.listConfigMapForAllNamespaces();
    await c.apps.listNamespacedDeployment({ namespace: 'default' });
    await fetch(`${c.sim.url}/version`);
    // Resetting the request log leaves the counters.
    await fetch(`${c.sim.url}/__sim/requests`, { method: 'DELETE' });

    const got = await cli.kubectl(['get', '--raw', '/metrics']);
    expect(got.code).toBe(0);
    const totals = samples(got.stdout, 'apiserver_request_total');
    const find = (labels: Record<string, string>) =>
      totals.filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    const base = {
      component: 'apiserver',
      group: '',
      version: 'v1',
      resource: 'configmaps',
      subresource: '',
    };
    expect(find({ ...base, verb: 'POST', scope: 'resource', dry_run: '', code: '201' })[0]?.value).toBe(1);
    expect(find({ ...base, verb: 'POST', scope: 'resource', dry_run: 'All', code: '201' })[0]?.value).toBe(1);
    expect(find({ ...base, verb: 'GET', scope: 'resource', code: '200' })[0]?.value).toBe(1);
    expect(find({ ...base, verb: 'GET', scope: 'resource', code: '404' })[0]?.value).toBe(1);
    expect(find({ ...base, verb: 'LIST', scope: 'cluster', code: '200' })[0]?.value).toBe(1);
    expect(
      find({ group: 'apps', version: 'v1', resource: 'deployments', verb: 'LIST', scope: 'namespace' })[0]
        ?.value,
    ).toBe(1);
    // Non-resource requests carry their path as subresource and no scope.
    expect(find({ verb: 'GET', resource: '', scope: '', subresource: '/version' })[0]?.value).toBe(1);
  });

  it('has a duration histogram per series with cumulative buckets', async () => {
    const text = await (await fetch(`${c.sim.url}/metrics`)).text();
    expect(text).toContain('# TYPE apiserver_request_duration_seconds histogram');
    const series = { verb: 'GET', resource: 'configmaps', scope: 'resource', dry_run: '' };
    const match = (s: { labels: Record<string, string> }) =>
      Object.entries(series).every(([k, v]) => s.labels[k] === v);
    const buckets = samples(text, 'apiserver_request_duration_seconds_bucket').filter(match);
    const count = samples(text, 'apiserver_request_duration_seconds_count').filter(match);
    expect(count[0]?.value).toBe(2);
    expect(buckets.at(-1)).toMatchObject({ labels: { le: '+Inf' }, value: 2 });
    const values = buckets.map((b) => b.value);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(buckets.map((b) => b.labels.le).slice(0, 3)).toEqual(['0.005', '0.025', '0.05']);
  });
});
