/**
 * Rollouts that cannot finish: an image the simulated kubelet cannot pull, with a short progress
 * deadline (ProgressDeadlineExceeded) or a short wait timeout. The revision is marked failed with
 * the reason; with rollbackOnFailure the previous revision is live again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelledError } from '../../../src/core/errors.ts';
import { RolloutFailedError, RolloutTimeoutError } from '../../../src/releases/index.ts';
import { appRelease, type Harness, startHarness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ settings: { unpullableImages: ['registry.example/broken*'] } });
});
afterAll(async () => {
  await h?.stop();
});

const deployment = (ns: string, name: string) => h.c.apps.readNamespacedDeployment({ namespace: ns, name });

describe('a rollout that cannot finish', () => {
  it('marks the revision failed with ProgressDeadlineExceeded as the reason', async () => {
    // The good install keeps the default deadline: under load its rollout may take over a second.
    await h.engine.upgrade(appRelease('stuck', 'job-1'));
    const err = await h.engine
      .upgrade(
        appRelease('stuck', 'job-2', { image: 'registry.example/broken:2', progressDeadlineSeconds: 1 }),
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RolloutFailedError);
    const failure = err as RolloutFailedError;
    expect(failure.reason).toMatch(/deployment "stuck-(web|worker)" exceeded its progress deadline/);
    expect(failure.rollback).toBeUndefined();
    expect(h.engine.history('stuck').map((r) => [r.revision, r.status])).toEqual([
      [1, 'deployed'],
      [2, 'failed'],
    ]);
    expect(h.engine.status('stuck')?.description).toContain('exceeded its progress deadline');
  });

  it('with rollbackOnFailure restores the previous revision as a new one, then reports the failure', async () => {
    await h.engine.upgrade(appRelease('safe', 'job-3'));
    const err = await h.engine
      .upgrade({
        ...appRelease('safe', 'job-4', { image: 'registry.example/broken:2', progressDeadlineSeconds: 1 }),
        rollbackOnFailure: true,
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RolloutFailedError);
    const failure = err as RolloutFailedError;
    expect(failure.rollback).toEqual({ state: 'rolled-back', revision: 3, toRevision: 1 });
    expect(failure.message).toContain('rolled back to revision 1 (as revision 3)');
    expect(h.engine.history('safe').map((r) => [r.revision, r.status, r.description.slice(0, 11)])).toEqual([
      [1, 'superseded', 'Install com'],
      [2, 'failed', 'deployment '],
      [3, 'deployed', 'Rollback to'],
    ]);
    for (const name of ['safe-web', 'safe-worker']) {
      const d = await deployment('safe', name);
      expect(d.spec?.template.spec?.containers[0]?.image).toBe('registry.example/web:1');
      expect(d.status?.updatedReplicas).toBe(2);
      expect(d.status?.availableReplicas).toBe(2);
    }
  });

  it('times out with the pending workloads named when the wait deadline passes first', async () => {
    await h.engine.upgrade(appRelease('slow', 'job-5'));
    const err = await h.engine
      .upgrade({
        ...appRelease('slow', 'job-6', { image: 'registry.example/broken:9' }),
        wait: { timeoutMs: 800 },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RolloutTimeoutError);
    expect((err as RolloutTimeoutError).reason).toMatch(
      /^timed out after 0.8 s waiting for: Waiting for deployment "slow-/,
    );
    expect(h.engine.status('slow')).toMatchObject({ revision: 2, status: 'failed' });
    // The next deploy of a good image proceeds (no lock), as a new revision.
    const fixed = await h.engine.upgrade(appRelease('slow', 'job-7', { image: 'registry.example/web:3' }));
    expect(fixed).toMatchObject({ outcome: 'deployed', revision: 3 });
  });

  it('an aborted wait leaves the revision pending; the next job marks it interrupted and goes on', async () => {
    const controller = new AbortController();
    const err = await h.engine
      .upgrade({
        ...appRelease('slow', 'job-8', { image: 'registry.example/broken:10' }),
        signal: controller.signal,
        // Cancelled while the rollout wait sleeps: right after the waiter's first report of what
        // it waits for (it then sleeps until a watch event, its poll, or the abort).
        onProgress: (e) => {
          if (e.step === 'wait' && e.message.startsWith('Waiting for') && !controller.signal.aborted) {
            setImmediate(() => controller.abort(new CancelledError('cancelled by an operator')));
          }
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledError);
    expect(h.engine.status('slow')).toMatchObject({
      revision: 4,
      status: 'pending-upgrade',
      holder: 'job-8',
    });
    const next = await h.engine.upgrade(appRelease('slow', 'job-9', { image: 'registry.example/web:4' }));
    expect(next).toMatchObject({
      outcome: 'deployed',
      revision: 5,
      recovered: { revision: 4, action: 'marked-failed' },
    });
    expect(h.engine.history('slow').map((r) => r.status)).toEqual([
      'superseded',
      'failed',
      'superseded',
      'failed',
      'deployed',
    ]);
  });
});
