/**
 * The release engine's decisions, on an in-memory history (MemoryReleaseHistory, held to the
 * Secret driver by the storage contract test) and an in-memory cluster (memory-cluster.ts): no
 * kube-sim, no Redis, no timers — the whole file runs in well under a second. What kube-sim adds
 * (HTTP, informers, request counts, controllers) is covered by test/integration/releases.
 */
import { describe, expect, it } from 'vitest';
import { TransientError } from '../../../src/core/errors.ts';
// Straight from the modules, not the layers' index files: those also export the Kubernetes-backed
// parts (client-node, the Secret driver), which this file must not pay for.
import { ReleaseEngine, type ReleaseEngineOptions } from '../../../src/releases/engine.ts';
import {
  ApplyFailedError,
  ReleaseChangedError,
  ReleaseInterruptedError,
  ReleaseNotFoundError,
  RevisionNotFoundError,
  RolloutFailedError,
} from '../../../src/releases/errors.ts';
import { RELEASE_LABEL } from '../../../src/releases/objects.ts';
import { INTERRUPTED } from '../../../src/releases/plan.ts';
import { finishRevision } from '../../../src/releases/revision-runner.ts';
import { MemoryReleaseHistory } from '../../../src/storage/memory-history.ts';
import type { ReleaseObject } from '../../../src/storage/types.ts';
import { TEST_SECRET_DIGEST_KEY } from '../../fixtures/digest-key.ts';
import { APP_RELEASE_DELETE_ORDER, appRelease } from '../../fixtures/releases/app-objects.ts';
import { MemoryCluster } from '../../fixtures/releases/memory-cluster.ts';

const WEB = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'shop-web' };
const WORKER = { ...WEB, name: 'shop-worker' };
const image = (tag: string) => `registry.example/web:${tag}`;

function setup(options: Partial<ReleaseEngineOptions> = {}) {
  const history = new MemoryReleaseHistory();
  const cluster = new MemoryCluster();
  const engine = new ReleaseEngine({
    cluster,
    history,
    secretDigestKey: TEST_SECRET_DIGEST_KEY,
    pollMs: 1,
    ...options,
  });
  /** Writes to history and to the cluster while `fn` ran. */
  const writesDuring = async (fn: () => Promise<unknown>) => {
    const before = { history: history.writes, cluster: cluster.writes.length };
    await fn();
    return { history: history.writes - before.history, cluster: cluster.writes.slice(before.cluster) };
  };
  const imageOf = (ref: typeof WEB) =>
    (cluster.object(ref)?.spec as { template?: { spec?: { containers?: { image: string }[] } } } | undefined)
      ?.template?.spec?.containers?.[0]?.image;
  const statuses = (release = 'shop') =>
    engine.history(release).map((r) => [r.revision, r.status, r.description]);
  return { history, cluster, engine, writesDuring, imageOf, statuses };
}

/** Fails the next `times` applies of `ref` with `error` (until the returned function is called). */
function failApplies(
  cluster: MemoryCluster,
  ref: typeof WEB,
  error: () => Error,
  times = Number.POSITIVE_INFINITY,
) {
  let left = times;
  let on = true;
  cluster.beforeWrite = (verb, target) => {
    if (!on || left <= 0 || verb !== 'apply' || target.name !== ref.name || target.kind !== ref.kind) return;
    left--;
    throw error();
  };
  return () => {
    on = false;
  };
}

describe('upgrade decisions', () => {
  it('installs: a pending-install revision, every object applied in dependency order, then deployed', async () => {
    const { engine, cluster, history, statuses } = setup();
    const steps: string[] = [];
    const result = await engine.upgrade({
      ...appRelease('shop', 'job-1'),
      onProgress: (e) => steps.push(`${e.step}: ${e.message}`),
    });
    expect(result).toMatchObject({ outcome: 'deployed', changed: true, revision: 1, status: 'deployed' });
    expect(steps).toContain('revision: revision 1 pending-install');
    expect(statuses()).toEqual([[1, 'deployed', 'Install complete']]);
    expect(cluster.writes.map((w) => w.object.split(' ')[0])).toEqual([
      'Namespace',
      'ServiceAccount',
      'Secret',
      'ConfigMap',
      'Deployment',
      'Deployment',
      'CronJob',
      'Service',
      'Ingress',
    ]);
    expect(cluster.object(WEB)?.metadata.labels?.[RELEASE_LABEL]).toBe('shop');
    // History keeps a digest in place of the Secret's value; the cluster got the value.
    expect(engine.history('shop')[0]?.redacted).toBe(true);
    const stored = await history.read('shop', 1);
    expect(JSON.stringify(stored)).not.toContain('postgres://db/web');
    const secret = cluster.object({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: 'shop',
      name: 'config-shop',
    });
    expect(Buffer.from(secret?.data?.DATABASE_URL ?? '', 'base64').toString()).toBe('postgres://db/web');
  });

  it('same content and no drift: a no-op that writes nothing, to history or to the cluster', async () => {
    const { engine, writesDuring } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    let result: Awaited<ReturnType<typeof engine.upgrade>> | undefined;
    const writes = await writesDuring(async () => {
      result = await engine.upgrade(appRelease('shop', 'job-2'));
    });
    expect(result).toMatchObject({ outcome: 'noop', changed: false, revision: 1, applied: [], deleted: [] });
    expect(writes).toEqual({ history: 0, cluster: [] });
  });

  it('values that differ only in recordOnlyKeys: a no-op; with a real change they are stored', async () => {
    const { engine, history, writesDuring } = setup();
    const base = appRelease('shop', 'job-1');
    await engine.upgrade({
      ...base,
      values: { ...base.values, recorded: 'a' },
      recordOnlyKeys: ['recorded'],
    });
    let result: Awaited<ReturnType<typeof engine.upgrade>> | undefined;
    const writes = await writesDuring(async () => {
      result = await engine.upgrade({
        ...appRelease('shop', 'job-2'),
        values: { ...base.values, recorded: 'b' },
        recordOnlyKeys: ['recorded'],
      });
    });
    expect(result).toMatchObject({ outcome: 'noop', revision: 1 });
    expect(writes).toEqual({ history: 0, cluster: [] });
    // Without the option the same difference is a new revision.
    const plain = await engine.upgrade({
      ...appRelease('shop', 'job-3'),
      values: { ...base.values, recorded: 'b' },
    });
    expect(plain).toMatchObject({ outcome: 'deployed', revision: 2 });
    expect((await history.read('shop', 2)).values.recorded).toBe('b');
    // A change beside it: a new revision that stores the record given.
    const changed = await engine.upgrade({
      ...appRelease('shop', 'job-4'),
      values: { ...base.values, other: 1, recorded: 'c' },
      recordOnlyKeys: ['recorded'],
    });
    expect(changed).toMatchObject({ outcome: 'deployed', revision: 3 });
    expect((await history.read('shop', 3)).values.recorded).toBe('c');
  });

  it('same content but drifted objects: only those re-applied, no new revision', async () => {
    const { engine, cluster, writesDuring, imageOf, statuses } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    cluster.edit(WEB, (o) => {
      (o.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec
        .containers[0]!.image = 'someone/else:1';
    });
    cluster.remove({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'shop-settings' });
    let result: Awaited<ReturnType<typeof engine.upgrade>> | undefined;
    const writes = await writesDuring(async () => {
      result = await engine.upgrade(appRelease('shop', 'job-2'));
    });
    expect(result).toMatchObject({ outcome: 'repaired', changed: true, revision: 1 });
    expect(writes).toEqual({
      history: 0,
      cluster: [
        { verb: 'apply', object: 'ConfigMap shop/shop-settings' },
        { verb: 'apply', object: 'Deployment shop/shop-web' },
      ],
    });
    expect(imageOf(WEB)).toBe(image('1'));
    expect(statuses()).toEqual([[1, 'deployed', 'Install complete']]);
  });

  it('changed content: a new revision applies only what changed, deletes what it drops, supersedes the old one', async () => {
    const { engine, cluster, writesDuring, statuses } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    const { cluster: writes } = await writesDuring(() =>
      engine.upgrade({ ...appRelease('shop', 'job-2', { image: image('2'), withoutWorker: true }) }),
    );
    expect(writes).toEqual([
      { verb: 'apply', object: 'Deployment shop/shop-web' },
      { verb: 'apply', object: 'CronJob shop/shop-cron-a1b2c3d4' },
      { verb: 'delete', object: 'Deployment shop/shop-worker' },
    ]);
    expect(cluster.object(WORKER)).toBeUndefined();
    expect(statuses()).toEqual([
      [1, 'superseded', 'Install complete'],
      [2, 'deployed', 'Upgrade complete'],
    ]);
  });

  it('a pending revision of the same job (holder) is continued, not duplicated', async () => {
    const { engine, cluster, statuses } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    const heal = failApplies(cluster, WEB, () => new TransientError('the API server is unavailable'));
    await expect(engine.upgrade(appRelease('shop', 'job-2', { image: image('2') }))).rejects.toThrow(
      TransientError,
    );
    expect(engine.status('shop')).toMatchObject({ revision: 2, status: 'pending-upgrade', holder: 'job-2' });
    heal();
    const result = await engine.upgrade(appRelease('shop', 'job-2', { image: image('2') }));
    expect(result).toMatchObject({
      outcome: 'deployed',
      revision: 2,
      recovered: { revision: 2, action: 'continued' },
    });
    expect(statuses()).toEqual([
      [1, 'superseded', 'Install complete'],
      [2, 'deployed', 'Upgrade complete'],
    ]);
  });

  it('a pending revision of another job is marked failed (interrupted), and the new job proceeds', async () => {
    const { engine, cluster, statuses, imageOf } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    const heal = failApplies(cluster, WEB, () => new TransientError('the API server is unavailable'));
    await expect(engine.upgrade(appRelease('shop', 'job-2', { image: image('2') }))).rejects.toThrow(
      TransientError,
    );
    heal();
    const result = await engine.upgrade(appRelease('shop', 'job-3', { image: image('3') }));
    expect(result).toMatchObject({
      outcome: 'deployed',
      revision: 3,
      recovered: { revision: 2, action: 'marked-failed' },
    });
    expect(statuses()).toEqual([
      [1, 'superseded', 'Install complete'],
      [2, 'failed', INTERRUPTED],
      [3, 'deployed', 'Upgrade complete'],
    ]);
    expect(imageOf(WEB)).toBe(image('3'));
  });

  it('back to the deployed content after a failed revision: repairs what the failure touched, no new revision', async () => {
    const { engine, cluster, imageOf, statuses, writesDuring } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    // Revision 2 applies the web Deployment, then the worker's apply is refused.
    failApplies(cluster, WORKER, () => new Error('admission webhook denied the request'));
    await expect(engine.upgrade(appRelease('shop', 'job-2', { image: image('2') }))).rejects.toThrow(
      ApplyFailedError,
    );
    expect(imageOf(WEB)).toBe(image('2'));
    cluster.beforeWrite = undefined;
    let result: Awaited<ReturnType<typeof engine.upgrade>> | undefined;
    const { cluster: writes } = await writesDuring(async () => {
      result = await engine.upgrade(appRelease('shop', 'job-3'));
    });
    expect(result).toMatchObject({ outcome: 'repaired', revision: 1 });
    // Every object revision 2 may have changed is applied again: the refused apply included, as
    // the engine cannot know whether the server refused it before or after storing it.
    expect(writes.map((w) => w.object)).toEqual([
      'Deployment shop/shop-web',
      'Deployment shop/shop-worker',
      'CronJob shop/shop-cron-a1b2c3d4',
    ]);
    expect(imageOf(WEB)).toBe(image('1'));
    expect(statuses().map(([rev, status]) => [rev, status])).toEqual([
      [1, 'deployed'],
      [2, 'failed'],
    ]);
  });

  it('prunes history to historyMax after each deploy; failed revisions count', async () => {
    const { engine, cluster } = setup({ historyMax: 3 });
    await engine.upgrade(appRelease('shop', 'job-1'));
    failApplies(cluster, WEB, () => new Error('refused'));
    for (const tag of ['2', '3']) {
      await expect(engine.upgrade(appRelease('shop', `job-${tag}`, { image: image(tag) }))).rejects.toThrow(
        ApplyFailedError,
      );
    }
    expect(engine.history('shop').map((r) => r.revision)).toEqual([1, 2, 3]);
    cluster.beforeWrite = undefined;
    await engine.upgrade(appRelease('shop', 'job-4', { image: image('4') }));
    await engine.upgrade(appRelease('shop', 'job-5', { image: image('5') }));
    expect(engine.history('shop').map((r) => [r.revision, r.status])).toEqual([
      [3, 'failed'],
      [4, 'superseded'],
      [5, 'deployed'],
    ]);
  });
});

describe('failures and rollbacks', () => {
  it('a failed rollout with rollbackOnFailure restores the deployed revision as a new one', async () => {
    const { engine, cluster, imageOf, statuses } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    cluster.unpullableImages.add(image('bad'));
    const err = await engine
      .upgrade({ ...appRelease('shop', 'job-2', { image: image('bad') }), rollbackOnFailure: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RolloutFailedError);
    expect((err as RolloutFailedError).rollback).toEqual({
      state: 'rolled-back',
      revision: 3,
      toRevision: 1,
    });
    expect((err as RolloutFailedError).problems).toEqual([`ErrImagePull: ${image('bad')} not found`]);
    expect(statuses()).toEqual([
      [1, 'superseded', 'Install complete'],
      [2, 'failed', expect.stringContaining('exceeded its progress deadline')],
      [3, 'deployed', 'Rollback to 1'],
    ]);
    expect(imageOf(WEB)).toBe(image('1'));
  });

  it('without rollbackOnFailure, the failed revision stays the last and the deployed one stays deployed', async () => {
    const { engine, cluster, statuses } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    cluster.unpullableImages.add(image('bad'));
    const err = await engine
      .upgrade(appRelease('shop', 'job-2', { image: image('bad') }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RolloutFailedError);
    expect((err as RolloutFailedError).rollback).toBeUndefined();
    expect(statuses().map(([rev, status]) => [rev, status])).toEqual([
      [1, 'deployed'],
      [2, 'failed'],
    ]);
  });

  it('a cancel marks the interrupted revision failed and always restores the deployed one', async () => {
    const { engine, cluster, statuses, imageOf } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    // The web Deployment is applied, then the worker's apply fails and the job is cancelled; the
    // restore's applies succeed.
    const heal = failApplies(cluster, WORKER, () => new TransientError('connection reset'), 1);
    const err = await engine
      .upgrade({ ...appRelease('shop', 'job-2', { image: image('2') }), onInterrupt: () => 'cancel' })
      .catch((e: unknown) => e);
    heal();
    expect(err).toBeInstanceOf(ReleaseInterruptedError);
    expect((err as ReleaseInterruptedError).rollback).toEqual({
      state: 'rolled-back',
      revision: 3,
      toRevision: 1,
    });
    expect(statuses()).toEqual([
      [1, 'superseded', 'Install complete'],
      [2, 'failed', 'cancelled during the operation (connection reset)'],
      [3, 'deployed', 'Rollback to 1'],
    ]);
    expect(imageOf(WEB)).toBe(image('1'));
  });

  it('on its last attempt, an interrupted revision is marked failed instead of left pending', async () => {
    const { engine, cluster, statuses } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    failApplies(cluster, WEB, () => new TransientError('connection reset'));
    await expect(
      engine.upgrade({ ...appRelease('shop', 'job-2', { image: image('2') }), onInterrupt: () => 'give-up' }),
    ).rejects.toThrow(ReleaseInterruptedError);
    expect(statuses()).toEqual([
      [1, 'deployed', 'Install complete'],
      [2, 'failed', 'interrupted, and its job will not retry: connection reset'],
    ]);
  });

  it('rollback: by default to the deployed revision before the current one, skipping failed ones', async () => {
    const { engine, cluster, imageOf, statuses } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    await engine.upgrade(appRelease('shop', 'job-2', { image: image('2') }));
    cluster.unpullableImages.add(image('bad'));
    await expect(engine.upgrade(appRelease('shop', 'job-3', { image: image('bad') }))).rejects.toThrow(
      RolloutFailedError,
    );
    const result = await engine.rollback({ release: 'shop', holder: 'job-4' });
    expect(result).toMatchObject({ outcome: 'deployed', revision: 4 });
    expect(statuses()).toEqual([
      [1, 'superseded', 'Install complete'],
      [2, 'superseded', 'Upgrade complete'],
      [3, 'failed', expect.any(String)],
      [4, 'deployed', 'Rollback to 1'],
    ]);
    expect(imageOf(WEB)).toBe(image('1'));
    // The same job retried after finishing (with the revision it restored) adds nothing.
    expect(await engine.rollback({ release: 'shop', holder: 'job-4', revision: 1 })).toMatchObject({
      outcome: 'noop',
      revision: 4,
    });
    // An explicit revision is restored even when its content is deployed elsewhere in history.
    expect(await engine.rollback({ release: 'shop', holder: 'job-5', revision: 2 })).toMatchObject({
      outcome: 'deployed',
      revision: 5,
    });
    expect(imageOf(WEB)).toBe(image('2'));
    await expect(engine.rollback({ release: 'shop', holder: 'job-6', revision: 42 })).rejects.toThrow(
      RevisionNotFoundError,
    );
    await expect(engine.rollback({ release: 'nothing', holder: 'job-7' })).rejects.toThrow(
      ReleaseNotFoundError,
    );
  });
});

describe('rollback of a release with a Secret', () => {
  const CONFIG = { apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: 'config-shop' };
  const config = (holder: string, value: string) => ({
    app: 'shop',
    release: 'config-shop',
    chart: { name: 'config', version: '1.0.0' },
    values: {},
    objects: [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'config-shop', namespace: 'shop' },
        type: 'Opaque',
        data: { A: Buffer.from(value).toString('base64') },
      } as ReleaseObject,
    ],
    holder,
    wait: false as const,
  });
  const liveValue = (cluster: MemoryCluster) =>
    Buffer.from((cluster.object(CONFIG) as { data?: { A?: string } }).data?.A ?? '', 'base64').toString();

  it('restores a value changed since from history, where it is sealed', async () => {
    const { engine, cluster } = setup({ secretSealKey: Buffer.alloc(32, 3) });
    await engine.upgrade(config('job-1', 'one'));
    await engine.upgrade(config('job-2', 'two'));
    expect(liveValue(cluster)).toBe('two');
    expect(await engine.rollback({ release: 'config-shop', revision: 1, holder: 'job-3' })).toMatchObject({
      outcome: 'deployed',
      revision: 3,
    });
    expect(liveValue(cluster)).toBe('one');
    // The rollback revision stores the same form as revision 1: a redeploy of 'one' is a no-op.
    expect(await engine.upgrade(config('job-4', 'one'))).toMatchObject({ outcome: 'noop', revision: 3 });
  });

  it('without a seal key, refuses before any write when the live Secret lost the value', async () => {
    const { engine, cluster, writesDuring } = setup();
    await engine.upgrade(config('job-1', 'one'));
    await engine.upgrade(config('job-2', 'two'));
    const writes = await writesDuring(() =>
      expect(engine.rollback({ release: 'config-shop', revision: 1, holder: 'job-3' })).rejects.toThrow(
        /revision 1 of config-shop cannot be restored: .*A \(changed in Secret shop\/config-shop\)/,
      ),
    );
    expect(writes).toEqual({ history: 0, cluster: [] });
    expect(liveValue(cluster)).toBe('two');
  });
});

describe('an upgrade only over a given revision (onlyOver: a writer outside the release lane)', () => {
  const PULL = { apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: 'pull-secret-shop' };
  const pull = (holder: string, value: string, onlyOver?: number | null) => ({
    app: 'shop',
    release: 'pull-secret-shop',
    chart: { name: 'pull-secret', version: '1.0.0' },
    values: { value },
    objects: [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'pull-secret-shop', namespace: 'shop' },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': Buffer.from(value).toString('base64') },
      } as ReleaseObject,
    ],
    holder,
    wait: false as const,
    ...(onlyOver !== undefined ? { onlyOver } : {}),
  });
  const liveValue = (cluster: MemoryCluster) =>
    Buffer.from(
      (cluster.object(PULL) as { data?: Record<string, string> } | undefined)?.data?.['.dockerconfigjson'] ??
        '',
      'base64',
    ).toString();
  const editValue = (cluster: MemoryCluster, value: string) =>
    cluster.edit(PULL, (o) => {
      o.data = { '.dockerconfigjson': Buffer.from(value).toString('base64') };
    });

  it('writes over the deployed revision while the live Secret holds what it applied', async () => {
    const { engine, cluster } = setup();
    await engine.upgrade(pull('job-1', 'old'));
    expect(await engine.upgrade(pull('rotation', 'new', 1))).toMatchObject({
      outcome: 'deployed',
      revision: 2,
    });
    expect(liveValue(cluster)).toBe('new');
  });

  it('leaves a Secret someone else wrote since alone: no write, no revision', async () => {
    const { engine, cluster, writesDuring } = setup();
    await engine.upgrade(pull('job-1', 'old'));
    editValue(cluster, 'own');
    const writes = await writesDuring(() =>
      expect(engine.upgrade(pull('rotation', 'new', 1))).rejects.toThrow(
        /pull-secret-shop changed while it was to be written: .*written by someone else after revision 1 was deployed/,
      ),
    );
    expect(writes).toEqual({ history: 0, cluster: [] });
    expect(liveValue(cluster)).toBe('own');
  });

  it("never interrupts another job's pending revision", async () => {
    const { engine, cluster, statuses } = setup();
    await engine.upgrade(pull('job-1', 'old'));
    const heal = failApplies(cluster, PULL, () => new TransientError('the API server is unavailable'));
    await expect(engine.upgrade(pull('job-2', 'own'))).rejects.toThrow(TransientError);
    heal();
    await expect(engine.upgrade(pull('rotation', 'new', 1))).rejects.toThrow(ReleaseChangedError);
    expect(statuses('pull-secret-shop')).toEqual([
      [1, 'deployed', 'Install complete'],
      [2, 'pending-upgrade', 'Preparing upgrade'],
    ]);
  });

  it('a write landing between its check and its own write wins: nothing of the upgrade lands', async () => {
    const { engine, cluster, statuses } = setup();
    await engine.upgrade(pull('job-1', 'old'));
    let once = true;
    cluster.beforeWrite = (verb, ref) => {
      if (verb !== 'apply' || ref.name !== PULL.name || !once) return;
      once = false;
      editValue(cluster, 'own');
    };
    await expect(engine.upgrade(pull('rotation', 'new', 1))).rejects.toThrow(ReleaseChangedError);
    expect(liveValue(cluster)).toBe('own');
    expect(statuses('pull-secret-shop')).toEqual([
      [1, 'deployed', 'Install complete'],
      [2, 'failed', expect.stringMatching(/changed while it was to be written/)],
    ]);
  });

  it('its own pending revision (a retry after a crash) is continued over what it already wrote', async () => {
    const { engine, cluster, statuses } = setup();
    await engine.upgrade(pull('job-1', 'old'));
    let once = true;
    cluster.beforeWrite = (verb, ref) => {
      if (verb !== 'apply' || ref.name !== PULL.name || !once) return;
      once = false;
      throw new TransientError('the API server is unavailable');
    };
    await expect(engine.upgrade(pull('rotation', 'new', 1))).rejects.toThrow(TransientError);
    expect(await engine.upgrade(pull('rotation', 'new', 1))).toMatchObject({
      outcome: 'deployed',
      revision: 2,
      recovered: { action: 'continued' },
    });
    expect(liveValue(cluster)).toBe('new');
    expect(statuses('pull-secret-shop').map(([r, status]) => [r, status])).toEqual([
      [1, 'superseded'],
      [2, 'deployed'],
    ]);
  });

  it('over no history: creates the object only while there is none', async () => {
    const { engine, cluster } = setup();
    cluster.put({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'pull-secret-shop', namespace: 'shop' },
      data: { '.dockerconfigjson': Buffer.from('own').toString('base64') },
    } as ReleaseObject);
    await expect(engine.upgrade(pull('rotation', 'new', null))).rejects.toThrow(ReleaseChangedError);
    expect(liveValue(cluster)).toBe('own');
    cluster.remove(PULL);
    expect(await engine.upgrade(pull('rotation', 'new', null))).toMatchObject({
      outcome: 'deployed',
      revision: 1,
    });
    expect(liveValue(cluster)).toBe('new');
  });

  it('an older revision finishing after a newer one was deployed leaves the newer one deployed', async () => {
    const { history, engine, cluster } = setup();
    const content = { chart: { name: 'pull-secret', version: '1.0.0' }, values: {}, objects: [] };
    const base = { app: 'shop', release: 'pull-secret-shop', content, description: 'x' };
    await history.create({ ...base, revision: 1, status: 'deployed', holder: 'job-1' });
    await history.create({ ...base, revision: 2, status: 'pending-upgrade', holder: 'rotation' });
    await history.create({ ...base, revision: 3, status: 'deployed', holder: 'job-2' });
    const parts = {
      history,
      live: cluster.live,
      writer: cluster.writer,
      historyMax: 10,
      pollMs: 1,
      diagnose: async () => [],
    };
    await finishRevision(parts, 'pull-secret-shop', 2, 'Upgrade complete', () => {});
    expect(engine.history('pull-secret-shop').map((r) => [r.revision, r.status])).toEqual([
      [1, 'superseded'],
      [2, 'deployed'],
      [3, 'deployed'],
    ]);
    expect(history.deployed('pull-secret-shop')?.revision).toBe(3);
  });
});

describe('uninstall decisions', () => {
  it('marks the release uninstalling, deletes in reverse dependency order, then its history', async () => {
    const { engine, cluster, history } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    const seen: string[] = [];
    cluster.beforeWrite = (verb) => {
      if (verb === 'delete') seen.push(history.last('shop')?.status ?? 'gone');
    };
    const result = await engine.uninstall({ release: 'shop', holder: 'job-2' });
    expect(result.existed).toBe(true);
    expect(result.deleted.map((r) => r.kind)).toEqual(APP_RELEASE_DELETE_ORDER);
    expect(new Set(seen)).toEqual(new Set(['uninstalling']));
    expect(engine.history('shop')).toEqual([]);
    expect(cluster.names()).toEqual([]);
    // A retried destroy finds nothing to do.
    expect(await engine.uninstall({ release: 'shop', holder: 'job-2' })).toEqual({
      release: 'shop',
      existed: false,
      deleted: [],
    });
  });

  it('deletes workloads in the foreground when asked (a destroy), everything else in the background', async () => {
    const { engine, cluster } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    cluster.writes.length = 0;
    await engine.uninstall({ release: 'shop', holder: 'job-2', foregroundWorkloads: true });
    const deletes = cluster.writes.filter((w) => w.verb === 'delete');
    expect(deletes.length).toBeGreaterThan(1);
    for (const write of deletes)
      expect([write.object, write.propagation]).toEqual([
        write.object,
        /^(Deployment|CronJob) /.test(write.object) ? 'Foreground' : undefined,
      ]);
    expect(deletes.some((w) => w.propagation === 'Foreground')).toBe(true);
  });

  it('keeps an object that is live as another release’s now', async () => {
    const { engine, cluster } = setup();
    await engine.upgrade(appRelease('shop', 'job-1'));
    const settings = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'shop-settings' };
    cluster.edit(settings, (o) => {
      o.metadata.labels = { ...o.metadata.labels, [RELEASE_LABEL]: 'other' };
    });
    const result = await engine.uninstall({ release: 'shop', holder: 'job-2' });
    expect(result.deleted.map((r) => r.name)).not.toContain('shop-settings');
    expect(cluster.names()).toEqual(['ConfigMap shop/shop-settings']);
  });
});

describe('input checks before any write', () => {
  it('refuses unknown kinds and duplicate objects without writing', async () => {
    const { engine, writesDuring } = setup();
    const base = appRelease('shop', 'job-1');
    const writes = await writesDuring(async () => {
      await expect(
        engine.upgrade({
          ...base,
          objects: [
            ...base.objects,
            { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } } as ReleaseObject,
          ],
        }),
      ).rejects.toThrow('the API server does not serve example.com/v1 Widget');
      await expect(engine.upgrade({ ...base, objects: [...base.objects, base.objects[3]!] })).rejects.toThrow(
        /appears twice/,
      );
    });
    expect(writes).toEqual({ history: 0, cluster: [] });
  });
});
