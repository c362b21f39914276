/**
 * engine.plan / planUninstall (src/releases/release-plan.ts, object-diff.ts): the dry run of an
 * upgrade, through the in-memory history and cluster: per object create, update (with the diff of
 * the owned fields, Secret values by key only), delete or unchanged, and never a write.
 */
import { describe, expect, it } from 'vitest';
import { ReleaseEngine } from '../../../src/releases/engine.ts';
import type { PlannedObject, ReleasePlan } from '../../../src/releases/release-plan.ts';
import { MemoryReleaseHistory } from '../../../src/storage/memory-history.ts';
import type { ReleaseObject } from '../../../src/storage/types.ts';
import { TEST_SECRET_DIGEST_KEY } from '../../fixtures/digest-key.ts';
import { appRelease } from '../../fixtures/releases/app-objects.ts';
import { MemoryCluster } from '../../fixtures/releases/memory-cluster.ts';

const WEB = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'shop-web' };
const CONFIG = { apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: 'config-shop' };

function setup() {
  const history = new MemoryReleaseHistory();
  const cluster = new MemoryCluster();
  const engine = new ReleaseEngine({ cluster, history, secretDigestKey: TEST_SECRET_DIGEST_KEY, pollMs: 1 });
  /** The plan, checked to have written nothing to history or the cluster. */
  const plan = async (input: ReturnType<typeof appRelease>): Promise<ReleasePlan> => {
    const before = { history: history.writes, cluster: cluster.writes.length };
    const result = await engine.plan(input);
    expect(history.writes).toBe(before.history);
    expect(cluster.writes.length).toBe(before.cluster);
    return result;
  };
  return { history, cluster, engine, plan };
}

const actions = (plan: ReleasePlan) => plan.objects.map((o) => `${o.action} ${o.kind}/${o.name}`);
const find = (plan: ReleasePlan, name: string): PlannedObject | undefined =>
  plan.objects.find((o) => o.name === name);

function withSecret(input: ReturnType<typeof appRelease>, stringData: Record<string, string>) {
  return {
    ...input,
    objects: input.objects.map((o) =>
      o.kind === 'Secret' ? ({ ...o, stringData } as unknown as ReleaseObject) : o,
    ),
  };
}

describe('engine.plan', () => {
  it('creates everything for a release that is not installed', async () => {
    const { plan } = setup();
    const result = await plan(appRelease('shop', 'job-1'));
    expect(result.newRevision).toBe(true);
    expect(result.deployedRevision).toBeUndefined();
    expect(new Set(result.objects.map((o) => o.action))).toEqual(new Set(['create']));
    expect(result.objects).toHaveLength(9);
  });

  it('finds nothing to do for the deployed content, whatever else the live objects carry', async () => {
    const { engine, cluster, plan } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    // Status, defaults and another manager's annotation are not longshore's fields.
    cluster.edit(WEB, (o) => {
      (o as { status?: unknown }).status = { replicas: 2 };
      o.metadata.annotations = { 'deployment.kubernetes.io/revision': '1' };
    });
    const result = await plan(appRelease('shop', 'job-2'));
    expect(result).toMatchObject({ newRevision: false, deployedRevision: 1 });
    expect(new Set(result.objects.map((o) => o.action))).toEqual(new Set(['unchanged']));
  });

  it('shows a changed image as a unified diff of the Deployments and the CronJob, and a dropped object as a delete', async () => {
    const { engine, plan } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    const result = await plan(
      appRelease('shop', 'job-2', { image: 'registry.example/web:2', withoutWorker: true }),
    );
    expect(result.newRevision).toBe(true);
    expect(actions(result).filter((a) => !a.startsWith('unchanged'))).toEqual([
      'update Deployment/shop-web',
      'update CronJob/shop-cron-a1b2c3d4',
      'delete Deployment/shop-worker',
    ]);
    const diff = find(result, 'shop-web')?.diff ?? '';
    expect(diff).toMatch(/^--- live\n\+\+\+ rendered\n@@ -\d+,\d+ \+\d+,\d+ @@\n/);
    expect(diff).toContain(
      '\n-          image: registry.example/web:1\n+          image: registry.example/web:2\n',
    );
    // Only the changed line, with three lines of context around it.
    const lines = diff.split('\n').slice(2, -1);
    expect(lines.filter((l) => l.startsWith('-') || l.startsWith('+'))).toHaveLength(2);
    expect(lines).toHaveLength(1 + 3 + 2 + 3);
  });

  it('shows drift of an owned field made by hand, and a field the render no longer sets as removed', async () => {
    const { engine, cluster, plan } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    cluster.edit(WEB, (o) => {
      (o.spec as { replicas: number }).replicas = 7;
    });
    const result = await plan(appRelease('shop', 'job-2'));
    expect(result.newRevision).toBe(false);
    expect(find(result, 'shop-web')).toMatchObject({ action: 'update' });
    expect(find(result, 'shop-web')?.diff).toContain('\n-  replicas: 7\n+  replicas: 2\n');

    // The deployed revision set spec.replicas; a render without it removes it (server-side apply).
    await engine.upgrade(appRelease('shop', 'job-3'));
    const input = appRelease('shop', 'job-4');
    const web = input.objects.find((o) => o.metadata.name === 'shop-web') as unknown as {
      spec: { replicas?: number };
    };
    delete web.spec.replicas;
    expect(find(await plan(input), 'shop-web')?.diff).toContain('\n-  replicas: 2\n');
  });

  it('reports Secret values per key by digest, and never a value', async () => {
    const { engine, plan } = setup();
    await engine.upgrade(
      withSecret(appRelease('shop', 'job-1'), { DATABASE_URL: 'postgres://db/web', OLD: 'x' }),
    );
    const result = await plan(
      withSecret(appRelease('shop', 'job-2'), { DATABASE_URL: 'postgres://db/other', NEW: 'fresh-value' }),
    );
    const secret = find(result, CONFIG.name);
    expect(secret).toMatchObject({
      action: 'update',
      values: { DATABASE_URL: 'changed', NEW: 'added', OLD: 'removed' },
    });
    expect(secret?.diff).toBeUndefined();
    const text = JSON.stringify(result);
    for (const value of [
      'postgres://db',
      'fresh-value',
      Buffer.from('fresh-value').toString('base64'),
      'hmac-sha256',
    ])
      expect(text).not.toContain(value);

    // The same values: nothing to do.
    await engine.upgrade(withSecret(appRelease('shop', 'job-3'), { DATABASE_URL: 'postgres://db/other' }));
    const same = await plan(withSecret(appRelease('shop', 'job-4'), { DATABASE_URL: 'postgres://db/other' }));
    expect(find(same, CONFIG.name)?.action).toBe('unchanged');
  });

  it('plans an uninstall as a delete of every live object, the ones gone already left out', async () => {
    const { engine, cluster, history } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    cluster.remove(WEB);
    const before = { history: history.writes, cluster: cluster.writes.length };
    const result = await engine.planUninstall('shop');
    expect(result).toMatchObject({ uninstall: true, newRevision: false, deployedRevision: 1 });
    expect(actions(result)).toEqual([
      'delete Ingress/shop-example-com',
      'delete Service/shop-web',
      'delete CronJob/shop-cron-a1b2c3d4',
      'delete Deployment/shop-worker',
      'delete ConfigMap/shop-settings',
      'delete Secret/config-shop',
      'delete ServiceAccount/shop',
      'delete Namespace/shop',
    ]);
    expect({ history: history.writes, cluster: cluster.writes.length }).toEqual(before);
    expect((await engine.planUninstall('ghost')).objects).toEqual([]);
  });
});
