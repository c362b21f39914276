/**
 * The upgrade's `beforeApply` step (the deploy's release task runs there): called with the revision
 * once it exists and before its first write; not for a no-op; a BeforeApplyFailure marks the
 * revision failed, applies nothing and rolls nothing back; a continued pending revision calls it
 * again with the same number.
 */
import { describe, expect, it } from 'vitest';
import { TransientError } from '../../../src/core/errors.ts';
import { ReleaseEngine } from '../../../src/releases/engine.ts';
import { BeforeApplyFailedError, BeforeApplyFailure } from '../../../src/releases/errors.ts';
import { MemoryReleaseHistory } from '../../../src/storage/memory-history.ts';
import { TEST_SECRET_DIGEST_KEY } from '../../fixtures/digest-key.ts';
import { appRelease } from '../../fixtures/releases/app-objects.ts';
import { MemoryCluster } from '../../fixtures/releases/memory-cluster.ts';

const image = (tag: string) => `registry.example/web:${tag}`;

function setup() {
  const history = new MemoryReleaseHistory();
  const cluster = new MemoryCluster();
  const engine = new ReleaseEngine({ cluster, history, secretDigestKey: TEST_SECRET_DIGEST_KEY, pollMs: 1 });
  const statuses = () => engine.history('shop').map((r) => [r.revision, r.status]);
  return { cluster, engine, statuses };
}

describe('beforeApply', () => {
  it('runs with the new revision before the first write, and not for a no-op', async () => {
    const { cluster, engine } = setup();
    const calls: [number, number][] = [];
    const beforeApply = async (revision: number) => {
      calls.push([revision, cluster.writes.length]);
    };
    await engine.upgrade({ ...appRelease('shop', 'job-1'), beforeApply });
    await engine.upgrade({ ...appRelease('shop', 'job-2', { image: image('2') }), beforeApply });
    const writesAfterSecond = cluster.writes.length;
    await engine.upgrade({ ...appRelease('shop', 'job-3', { image: image('2') }), beforeApply });
    expect(calls.map(([revision]) => revision)).toEqual([1, 2]);
    // Called before the revision's writes: the first install had written nothing yet.
    expect(calls[0]![1]).toBe(0);
    expect(cluster.writes.length).toBe(writesAfterSecond);
  });

  it('a BeforeApplyFailure fails the revision, applies nothing, and rolls nothing back', async () => {
    const { cluster, engine, statuses } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    const before = cluster.writes.length;
    const err = await engine
      .upgrade({
        ...appRelease('shop', 'job-2', { image: image('2') }),
        rollbackOnFailure: true,
        beforeApply: async () => {
          throw new BeforeApplyFailure('release task shop-release-2 exited 3');
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BeforeApplyFailedError);
    expect((err as Error).message).toBe(
      'release shop revision 2 failed: release task shop-release-2 exited 3',
    );
    expect(cluster.writes.length).toBe(before);
    expect(statuses()).toEqual([
      [1, 'deployed'],
      [2, 'failed'],
    ]);
    expect(engine.history('shop')[1]?.description).toBe('release task shop-release-2 exited 3');
  });

  it('an interruption leaves the revision pending; the retry continues it with the same number', async () => {
    const { engine, statuses } = setup();
    const seen: number[] = [];
    const input = appRelease('shop', 'job-1');
    await expect(
      engine.upgrade({
        ...input,
        beforeApply: async (revision) => {
          seen.push(revision);
          throw new TransientError('the API server is away');
        },
      }),
    ).rejects.toBeInstanceOf(TransientError);
    expect(statuses()).toEqual([[1, 'pending-install']]);
    await engine.upgrade({ ...input, beforeApply: async (revision) => void seen.push(revision) });
    expect(seen).toEqual([1, 1]);
    expect(statuses()).toEqual([[1, 'deployed']]);
  });

  it('a cancel during beforeApply fails the revision and restores nothing (nothing was written)', async () => {
    const { cluster, engine, statuses } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    const before = cluster.writes.length;
    await expect(
      engine.upgrade({
        ...appRelease('shop', 'job-2', { image: image('2') }),
        onInterrupt: () => 'cancel',
        beforeApply: async () => {
          throw new Error('aborted by its reader');
        },
      }),
    ).rejects.toThrow(/cancelled during the operation/);
    expect(statuses()).toEqual([
      [1, 'deployed'],
      [2, 'failed'],
    ]);
    expect(cluster.writes.length).toBe(before);
  });

  it('a continued revision may have been applied by the attempt before: its failure there is rolled back', async () => {
    const { cluster, engine, statuses } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    const input = appRelease('shop', 'job-2', { image: image('2') });
    // The first attempt applies, then stops (transient, kept pending for its retry).
    let applies = 0;
    cluster.beforeWrite = (verb) => {
      if (verb === 'apply' && ++applies === 2) throw new TransientError('the API server is away');
    };
    await expect(engine.upgrade(input)).rejects.toBeInstanceOf(TransientError);
    cluster.beforeWrite = undefined;
    expect(statuses()).toEqual([
      [1, 'deployed'],
      [2, 'pending-upgrade'],
    ]);
    const err = await engine
      .upgrade({
        ...input,
        rollbackOnFailure: true,
        beforeApply: async () => {
          throw new BeforeApplyFailure('release task shop-release-2: its Job is gone');
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BeforeApplyFailedError);
    expect((err as BeforeApplyFailedError).rollback).toEqual({
      state: 'rolled-back',
      revision: 3,
      toRevision: 1,
    });
    expect(statuses()).toEqual([
      [1, 'superseded'],
      [2, 'failed'],
      [3, 'deployed'],
    ]);
  });

  it("the restore after a failed rollout runs no beforeApply (the release task is the change's)", async () => {
    const { cluster, engine, statuses } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    cluster.unpullableImages.add(image('bad'));
    const seen: number[] = [];
    await expect(
      engine.upgrade({
        ...appRelease('shop', 'job-2', { image: image('bad') }),
        rollbackOnFailure: true,
        beforeApply: async (revision) => void seen.push(revision),
      }),
    ).rejects.toThrow(/failed/);
    expect(seen).toEqual([2]);
    expect(statuses()).toEqual([
      [1, 'superseded'],
      [2, 'failed'],
      [3, 'deployed'],
    ]);
  });
});
