/**
 * Chaos: 5% of requests answer 500, 5% of patches 429 with Retry-After, watches are cut and the
 * watch history compacted between upgrades. Upgrades still converge (retried in-call), history
 * stays consistent, and the informers relist and keep seeing the truth (a deletion made while
 * they were disconnected is found as drift).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../../infra/kube-sim/server/faults.ts';
import { TransientError } from '../../../src/core/errors.ts';
import { until } from '../../helpers/wait.ts';
import { appRelease, type Harness, startHarness } from './harness.ts';

const FAULTS: FaultRule[] = [
  { errorRate: 0.05, status: 500 },
  { verb: 'patch', errorRate: 0.05, status: 429, retryAfterSeconds: 1 },
];

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const images = async (ns: string) =>
  (await h.c.apps.listNamespacedDeployment({ namespace: ns })).items.map(
    (d) => d.spec?.template.spec?.containers[0]?.image,
  );

describe('under injected faults', () => {
  it('upgrades converge through 500s, 429s, dropped watches and compaction', async () => {
    await h.engine.upgrade(appRelease('chaos', 'job-0'));
    h.c.sim.faults.set(FAULTS);
    try {
      for (let i = 1; i <= 4; i++) {
        if (i === 2) h.c.sim.dropWatches();
        if (i === 3) {
          h.c.sim.dropWatches();
          h.c.sim.compact();
        }
        const result = await h.engine.upgrade(
          appRelease('chaos', `job-${i}`, { image: `registry.example/web:${i + 1}` }),
        );
        expect(result).toMatchObject({ outcome: 'deployed', revision: i + 1 });
      }
      // Same content again: informers that lived through the faults see no drift.
      expect(
        (await h.engine.upgrade(appRelease('chaos', 'job-5', { image: 'registry.example/web:5' }))).outcome,
      ).toBe('noop');
    } finally {
      h.c.sim.faults.clear();
    }
    expect(h.c.sim.requests.entries().filter((r) => r.status >= 429).length).toBeGreaterThan(0);
    expect(await images('chaos')).toEqual(['registry.example/web:5', 'registry.example/web:5']);
    expect(h.engine.history('chaos').map((r) => r.status)).toEqual([
      'superseded',
      'superseded',
      'superseded',
      'superseded',
      'deployed',
    ]);
  });

  it('informers relist after a 410 and notice a deletion made while they were cut off', async () => {
    h.c.sim.requests.reset();
    h.c.sim.dropWatches();
    await h.c.core.deleteNamespacedConfigMap({ namespace: 'chaos', name: 'chaos-settings' });
    h.c.sim.compact(); // resuming watches now get 410 Expired: they must relist
    h.c.sim.dropWatches();
    h.c.sim.faults.set(FAULTS);
    try {
      // The informer sees the deletion once it relisted: a repair re-creates only that object.
      // Upgrades must not fail meanwhile (errors: 'throw'); they may find nothing to repair yet.
      const repaired = await until(
        async () => {
          const result = await h.engine.upgrade(
            appRelease('chaos', 'job-6', { image: 'registry.example/web:5' }),
          );
          return result.outcome === 'repaired' && result;
        },
        'a repair once the informer relisted',
        { timeoutMs: 10_000, intervalMs: 100, errors: 'throw' },
      );
      const applied = repaired.applied.map((r) => `${r.kind}/${r.name}`);
      expect(applied).toEqual(['ConfigMap/chaos-settings']);
      // A started informer lists again only after a 410: it did.
      expect(
        h.c.sim.requests.entries({ verb: 'list', resource: '/configmaps', namespace: 'chaos' }).length,
      ).toBeGreaterThan(0);
    } finally {
      h.c.sim.faults.clear();
    }
    expect(
      (await h.c.core.readNamespacedConfigMap({ namespace: 'chaos', name: 'chaos-settings' })).data,
    ).toEqual({
      LOG_LEVEL: 'info',
    });
    expect(h.engine.history('chaos')).toHaveLength(5);
  });

  it('a transient failure outlasting the in-call retries leaves the revision pending for the job’s retry', async () => {
    // Exactly the engine's five attempts fail, then the API recovers.
    h.c.sim.faults.set([
      { verb: 'patch', resource: 'apps/deployments', errorRate: 1, status: 503, limit: 5 },
    ]);
    const err = await h.engine
      .upgrade(appRelease('chaos', 'job-7', { image: 'registry.example/web:6' }))
      .catch((e: unknown) => e);
    h.c.sim.faults.clear();
    expect(err).toBeInstanceOf(TransientError);
    expect(h.engine.status('chaos')).toMatchObject({
      revision: 6,
      status: 'pending-upgrade',
      holder: 'job-7',
    });

    const retried = await h.engine.upgrade(appRelease('chaos', 'job-7', { image: 'registry.example/web:6' }));
    expect(retried).toMatchObject({
      outcome: 'deployed',
      revision: 6,
      recovered: { revision: 6, action: 'continued' },
    });
    expect(await images('chaos')).toEqual(['registry.example/web:6', 'registry.example/web:6']);
  });
});
