/**
 * The release engine against kube-sim over HTTP with the real SecretReleaseStore: install,
 * upgrade, no-op, drift repair, rollback, uninstall, history, validation errors.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../../src/releases/events.ts';
import { ApplyFailedError, MANAGED_BY_LABEL, RELEASE_LABEL } from '../../../src/releases/index.ts';
import type { ReleaseObject } from '../../../src/storage/types.ts';
import { APP_RELEASE_DELETE_ORDER } from '../../fixtures/releases/app-objects.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { statusOf } from '../../helpers/sim.ts';
import { until } from '../../helpers/wait.ts';
import { appRelease, countRequests, type Harness, startHarness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const image = async (ns: string, name: string) =>
  (await h.c.apps.readNamespacedDeployment({ namespace: ns, name })).spec?.template.spec?.containers[0]
    ?.image;

describe('upgrade', () => {
  it('installs a release: labelled objects in order, rolled out, revision 1 deployed', async () => {
    const events: ProgressEvent[] = [];
    const result = await h.engine.upgrade({
      ...appRelease('shop', 'job-1'),
      onProgress: (e) => events.push(e),
    });
    expect(result).toMatchObject({ outcome: 'deployed', changed: true, revision: 1, status: 'deployed' });
    expect(result.applied).toHaveLength(9);
    expect(result.applied.map((r) => r.kind).slice(0, 4)).toEqual([
      'Namespace',
      'ServiceAccount',
      'Secret',
      'ConfigMap',
    ]);

    const web = await h.c.apps.readNamespacedDeployment({ namespace: 'shop', name: 'shop-web' });
    expect(web.metadata?.labels).toMatchObject({ [MANAGED_BY_LABEL]: 'longshore', [RELEASE_LABEL]: 'shop' });
    expect(
      web.metadata?.managedFields?.some((f) => f.manager === 'longshore' && f.operation === 'Apply'),
    ).toBe(true);
    expect(web.status?.availableReplicas).toBe(2); // waited for the rollout

    expect(h.engine.history('shop').map((r) => [r.revision, r.status, r.description])).toEqual([
      [1, 'deployed', 'Install complete'],
    ]);
    expect(h.engine.status('shop')?.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(events.map((e) => e.step)).toEqual(
      expect.arrayContaining(['plan', 'revision', 'apply', 'wait', 'finish']),
    );
    const applies = events.filter((e) => e.step === 'apply');
    expect(applies.at(-1)).toMatchObject({ index: 9, total: 9 });
  });

  it('redeploys the same content with zero writes and zero Secret GETs, also from a cold worker', async () => {
    h.c.sim.requests.reset();
    const warm = await h.engine.upgrade(appRelease('shop', 'job-2'));
    expect(warm).toMatchObject({ outcome: 'noop', changed: false, revision: 1, applied: [], deleted: [] });
    const counts = countRequests(h.c.sim.requests.entries());
    expect(counts.writes).toBe(0);
    expect(counts.secretGets).toBe(0);

    // Another worker process: its informers list (LIST + WATCH), but it reads no Secret and writes nothing.
    const cold = await h.coldEngine();
    h.c.sim.requests.reset();
    const again = await cold.engine.upgrade(appRelease('shop', 'job-3'));
    expect(again.outcome).toBe('noop');
    const coldCounts = countRequests(h.c.sim.requests.entries());
    expect(coldCounts.writes).toBe(0);
    expect(coldCounts.secretGets).toBe(0);
    expect(Object.keys(coldCounts.byKind).every((k) => k.startsWith('list ') || k.startsWith('watch '))).toBe(
      true,
    );
    expect(h.engine.history('shop')).toHaveLength(1);
  });

  it('stops informer caches left idle and lists again when they are needed', async () => {
    // Idle time is measured on the engine's clock: move it on instead of sleeping.
    const clock = new ManualClock(Date.now());
    const idle = await h.coldEngine({ cacheIdleTimeoutMs: 50, clock });
    expect((await idle.engine.upgrade(appRelease('shop', 'job-idle-1'))).outcome).toBe('noop');
    await clock.advance(150);
    h.c.sim.requests.reset();
    expect((await idle.engine.upgrade(appRelease('shop', 'job-idle-2'))).outcome).toBe('noop');
    const counts = countRequests(h.c.sim.requests.entries());
    expect(counts.byKind['list apps/deployments']).toBe(1); // evicted, so listed again
    expect(counts.writes).toBe(0);
  });

  it('upgrades an image: only the changed objects are applied, the old revision superseded', async () => {
    h.c.sim.requests.reset();
    const result = await h.engine.upgrade(appRelease('shop', 'job-4', { image: 'registry.example/web:2' }));
    expect(result).toMatchObject({ outcome: 'deployed', revision: 2 });
    expect(result.applied.map((r) => `${r.kind}/${r.name}`)).toEqual([
      'Deployment/shop-web',
      'Deployment/shop-worker',
      'CronJob/shop-cron-a1b2c3d4',
    ]);
    const counts = countRequests(h.c.sim.requests.entries());
    expect(counts.byKind['patch apps/deployments']).toBe(2);
    expect(counts.byKind['patch batch/cronjobs']).toBe(1);
    expect(counts.byKind['patch /services']).toBeUndefined();
    expect(await image('shop', 'shop-web')).toBe('registry.example/web:2');
    expect(h.engine.history('shop').map((r) => [r.revision, r.status])).toEqual([
      [1, 'superseded'],
      [2, 'deployed'],
    ]);
  });

  it('deletes objects the new revision drops', async () => {
    const result = await h.engine.upgrade(
      appRelease('shop', 'job-5', { image: 'registry.example/web:2', withoutWorker: true }),
    );
    expect(result.deleted).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'shop-worker' },
    ]);
    expect(
      (await statusOf(h.c.apps.readNamespacedDeployment({ namespace: 'shop', name: 'shop-worker' }))).code,
    ).toBe(404);
    expect(h.engine.status('shop')).toMatchObject({ revision: 3, status: 'deployed' });
  });

  it('repairs drift (an edited and a deleted object) by re-applying only those, with no new revision', async () => {
    const input = appRelease('shop', 'job-6', { image: 'registry.example/web:2', withoutWorker: true });
    // Someone edits the ConfigMap by hand and deletes the Service.
    await h.c.objects.patch(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'shop-settings', namespace: 'shop' },
        data: { LOG_LEVEL: 'debug' },
      },
      undefined,
      undefined,
      'kubectl-edit',
      undefined,
      k8s.PatchStrategy.MergePatch,
    );
    await h.c.core.deleteNamespacedService({ namespace: 'shop', name: 'shop-web' });
    await until(
      async () => {
        const cm = await h.c.core.readNamespacedConfigMap({ namespace: 'shop', name: 'shop-settings' });
        return cm.data?.LOG_LEVEL === 'debug';
      },
      'the edit on the server',
      { timeoutMs: 5_000, errors: 'throw' },
    );
    // The engine's informer caches (what observe() reads for objects it applied) see both changes.
    const touched = input.objects.filter((o) => o.kind === 'ConfigMap' || o.kind === 'Service');
    await until(
      async () => {
        const seen = await h.engine.observe('shop', touched);
        const cm = seen.find((o) => o.ref.kind === 'ConfigMap')?.live as k8s.V1ConfigMap | undefined;
        return (
          cm?.data?.LOG_LEVEL === 'debug' && seen.find((o) => o.ref.kind === 'Service')?.live === undefined
        );
      },
      'the informers to see the edit and the deletion',
      { timeoutMs: 5_000, intervalMs: 10, errors: 'throw' },
    );

    h.c.sim.requests.reset();
    const result = await h.engine.upgrade(input);
    expect(result).toMatchObject({ outcome: 'repaired', changed: true, revision: 3 });
    expect(result.applied.map((r) => `${r.kind}/${r.name}`).sort()).toEqual([
      'ConfigMap/shop-settings',
      'Service/shop-web',
    ]);
    const counts = countRequests(h.c.sim.requests.entries());
    expect(counts.writes).toBe(2);
    expect(counts.secretGets).toBe(0);
    expect(
      (await h.c.core.readNamespacedConfigMap({ namespace: 'shop', name: 'shop-settings' })).data?.LOG_LEVEL,
    ).toBe('info');
    expect(
      (await h.c.core.readNamespacedService({ namespace: 'shop', name: 'shop-web' })).spec?.ports?.[0]?.port,
    ).toBe(80);
    expect(h.engine.history('shop')).toHaveLength(3);

    // Repaired: the next redeploy is a no-op again.
    expect((await h.engine.upgrade(input)).outcome).toBe('noop');
  });

  it('rolls back to an earlier revision as a new revision, and a retry of that job adds nothing', async () => {
    const result = await h.engine.rollback({ release: 'shop', revision: 1, holder: 'job-7' });
    expect(result).toMatchObject({ outcome: 'deployed', revision: 4 });
    expect(await image('shop', 'shop-web')).toBe('registry.example/web:1');
    expect(await image('shop', 'shop-worker')).toBe('registry.example/web:1'); // re-created
    expect(h.engine.history('shop').map((r) => [r.revision, r.status, r.description])).toEqual([
      [1, 'superseded', 'Install complete'],
      [2, 'superseded', 'Upgrade complete'],
      [3, 'superseded', 'Upgrade complete'],
      [4, 'deployed', 'Rollback to 1'],
    ]);
    const retried = await h.engine.rollback({ release: 'shop', revision: 1, holder: 'job-7' });
    expect(retried).toMatchObject({ outcome: 'noop', revision: 4 });
    expect(h.engine.history('shop')).toHaveLength(4);
  });

  it('surfaces a validation error with the server’s message and marks the revision failed', async () => {
    const input = appRelease('shop', 'job-8', { image: 'registry.example/web:3' });
    const broken = input.objects.map((o) =>
      o.kind === 'Service'
        ? ({
            ...o,
            spec: { ...(o as { spec?: object }).spec, ports: [{ name: 'http', port: 70000 }] },
          } as ReleaseObject)
        : o,
    );
    const err = await h.engine.upgrade({ ...input, objects: broken }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplyFailedError);
    const failure = err as ApplyFailedError;
    expect(failure.object).toMatchObject({ kind: 'Service', name: 'shop-web' });
    expect(failure.reason).toContain('Service "shop-web" is invalid');
    expect(failure.reason).toContain('spec.ports[0].port');
    expect(h.engine.status('shop')).toMatchObject({ revision: 5, status: 'failed' });
    expect(h.engine.status('shop')?.description).toContain('spec.ports[0].port');
  });

  it('caps history, never pruning the deployed revision', async () => {
    const capped = await h.coldEngine({ historyMax: 3 });
    for (const tag of ['4', '5', '6']) {
      await capped.engine.upgrade(
        appRelease('shop', `job-cap-${tag}`, { image: `registry.example/web:${tag}` }),
      );
    }
    await until(() => capped.engine.history('shop').length === 3, 'the capped history', { timeoutMs: 5_000 });
    expect(capped.engine.history('shop').map((r) => r.revision)).toEqual([6, 7, 8]);
    await until(() => h.engine.history('shop').length === 3, 'the other engine to see the pruning', {
      timeoutMs: 5_000,
    });
  });

  it('uninstalls: objects deleted in reverse order, then the history', async () => {
    const events: ProgressEvent[] = [];
    const result = await h.engine.uninstall({
      release: 'shop',
      holder: 'job-9',
      onProgress: (e) => events.push(e),
    });
    expect(result.existed).toBe(true);
    expect(result.deleted.map((r) => r.kind)).toEqual(APP_RELEASE_DELETE_ORDER);
    expect(h.engine.history('shop')).toEqual([]);
    expect(h.engine.status('shop')).toBeUndefined();
    expect((await h.engine.uninstall({ release: 'shop', holder: 'job-9' })).existed).toBe(false);
  });

  it('waits for a PVC to be Bound when asked', async () => {
    const result = await h.engine.upgrade({
      ...appRelease('files', 'job-10', { withClaim: true }),
      wait: { pvcs: true, timeoutMs: 20_000 },
    });
    expect(result.outcome).toBe('deployed');
    const claim = await h.c.core.readNamespacedPersistentVolumeClaim({
      namespace: 'files',
      name: 'files-data',
    });
    expect(claim.status?.phase).toBe('Bound');
  });
});
