/**
 * apps:rename end to end: CLI → Redis → worker process → kube-sim over HTTP. A deployed app with a
 * domain, a cron task, config, registry credentials, a storage mount and a leftover `tls-{old}`
 * release becomes the same app under the new name, with nothing of the old name left; renaming
 * onto an existing app (or from a missing one) fails before any write; a job for the old name
 * enqueued before the rename moved the app (its lane position at or before the marker's) fails
 * naming the new one, and so does any job but a deploy afterwards, while a deploy afterwards creates
 * the old name anew; a marker from before the position is pinned by the first job that meets it. A
 * worker killed at each step: rename-crash.test.ts; the verdicts on real Redis, a stalled rename
 * among them: test/integration/rename-projection.test.ts.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/jobs/keys.ts';
import { RENAMED_FIELD, readRenamed } from '../../src/jobs/renamed.ts';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { type AppRow, renameChecks } from '../helpers/rename-checks.ts';
import { until } from '../helpers/wait.ts';

let fleet: DeployFleet;
let store: SecretReleaseStore;
let checks: ReturnType<typeof renameChecks>;
let redis: Redis;

beforeAll(async () => {
  fleet = await startDeployFleet();
  redis = new Redis(fleet.redis.url, { maxRetriesPerRequest: null });
  await fleet.startWorker();
  store = await fleet.store();
  checks = renameChecks(fleet, store);
  await checks.createStorage();
});

afterAll(async () => {
  redis?.disconnect();
  await fleet?.stop();
});

describe('apps:rename', () => {
  it('moves a deployed app with a domain, cron task, config, mount and a leftover tls release to the new name', async () => {
    const before = await checks.prepare('shop');
    expect(store.releases('shop')).toEqual(['config-shop', 'pull-secret-shop', 'shop', 'tls-shop']);
    const cronBefore = (await checks.served('shop')).cron;

    const out = await fleet.ok(['apps:rename', 'shop', 'store', '--wait']);
    expect(out).toMatch(/-----> Renaming shop to store/);
    expect(out).toMatch(/store: revision 1 deployed/);
    expect(out).toMatch(/uninstalled shop \(\d+ objects?\)/);
    expect(out).toMatch(/uninstalled tls-shop \(1 object\)/);
    expect(out).toMatch(/completed: renamed shop to store/);
    await checks.expectRenamed('shop', 'store', before);
    // The cron task keeps its suffix: only the app part of the CronJob's name changed.
    expect((await checks.served('store')).cron).toEqual(cronBefore);
    // The old name's job history stays readable.
    expect(await fleet.ok(['jobs:show', 'app.shop.4'])).toMatch(/deployed registry\.example\.com\/shop:1/);

    // A job for the old name fails for good, naming the new one; nothing of shop comes back.
    const late = await fleet.cli(['config:set', 'shop', 'GREETING=again', '--wait']);
    expect(late.code).toBe(1);
    expect(late.stdout + late.stderr).toMatch(/app shop was renamed to store/);
    expect(store.releases('shop')).toEqual([]);
    // The new name takes jobs as any app does.
    expect(await fleet.ok(['config:set', 'store', 'GREETING=hello', '--wait'])).toMatch(/store: revision 2/);
  });

  it('refuses to rename onto an existing app, or from a missing one, before any write', async () => {
    await fleet.ok(['deploy', 'taken', '--image', 'registry.example.com/taken:1', '--wait']);
    await fleet.ok(['deploy', 'mover', '--image', 'registry.example.com/mover:1', '--wait']);
    let result: Awaited<ReturnType<DeployFleet['cli']>> | undefined;
    const writes = await fleet.writesDuring(async () => {
      result = await fleet.cli(['apps:rename', 'mover', 'taken', '--wait']);
    });
    expect(result?.code).toBe(1);
    expect(result!.stdout + result!.stderr).toMatch(/app taken already exists/);
    expect(writes).toEqual([]);
    expect(store.releases('mover')).toEqual(['config-mover', 'mover']);
    expect(store.apps.get('mover')).toBeDefined();

    const missing = await fleet.cli(['apps:rename', 'ghost', 'spirit', '--wait']);
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toMatch(/app ghost does not exist/);
    expect(store.releases('spirit')).toEqual([]);
  });
});

describe('ordering around a rename', () => {
  it('runs a deploy for the new name enqueued during the rename after it, on the spec the rename moved', async () => {
    await checks.deploy('early');
    const readyDelay = fleet.sim.settings.podReadyDelayMs;
    fleet.sim.settings.podReadyDelayMs = 3_000;
    const renaming = fleet.cli(['apps:rename', 'early', 'later', '--wait'], { timeoutMs: 120_000 });
    await until(
      () => (store.last('later')?.status === 'pending-install' ? true : undefined),
      'the rename to be installing the new app release',
    );
    const deploying = fleet.cli(['deploy', 'later', '--image', 'registry.example.com/later:2', '--wait'], {
      timeoutMs: 120_000,
    });
    const [renamed, deployed] = await Promise.all([renaming, deploying]);
    fleet.sim.settings.podReadyDelayMs = readyDelay;
    expect(renamed.code).toBe(0);
    expect(deployed.code).toBe(0);
    expect(deployed.stdout).toMatch(/later: revision 2 deployed/);

    const jobs = JSON.parse(await fleet.ok(['jobs:list', '--json'])) as {
      id: string;
      type: string;
      lane?: string;
    }[];
    const show = async (id: string) =>
      JSON.parse(await fleet.ok(['jobs:show', id, '--json'])) as {
        attempts: { startedAt: number; endedAt?: number }[];
      };
    const rename = await show(jobs.find((j) => j.type === 'rename' && j.lane === 'app.early')!.id);
    const deployJob = await show(jobs.find((j) => j.type === 'deploy' && j.lane === 'app.later')!.id);
    const gap = deployJob.attempts[0]!.startedAt - rename.attempts.at(-1)!.endedAt!;
    expect(gap).toBeGreaterThanOrEqual(0);
    // Promoted when the rename ended (job-records.ts, releaseBarrier), not at its park fallback,
    // which by then is seconds long (0.5 s doubling per park).
    expect(gap).toBeLessThan(1_500);
    // The deploy built on the spec the rename moved: the old name's domain and mount came with it.
    expect(store.apps.get('later')?.spec).toMatchObject({
      image: 'registry.example.com/later:2',
      domains: ['early.example.com'],
      mounts: [{ entry: 'files', mountPath: '/files' }],
    });
    expect(store.releases('early')).toEqual([]);
  });
});

describe('the old name after a rename', () => {
  it('refuses jobs enqueued before the rename moved it and jobs other than a deploy after; a later deploy creates it anew', async () => {
    await fleet.ok(['deploy', 'elder', '--image', 'registry.example.com/elder:1', '--wait']);
    // Slow pods, so the rename is still running when a deploy of the old name is enqueued.
    const readyDelay = fleet.sim.settings.podReadyDelayMs;
    fleet.sim.settings.podReadyDelayMs = 2_000;
    const renaming = fleet.cli(['apps:rename', 'elder', 'younger', '--wait'], { timeoutMs: 120_000 });
    await until(
      () => (store.last('younger')?.status === 'pending-install' ? true : undefined),
      'the rename to be installing the new app release',
    );
    const early = await fleet.cli(['deploy', 'elder', '--image', 'registry.example.com/elder:2', '--wait'], {
      timeoutMs: 120_000,
    });
    const renamed = await renaming;
    fleet.sim.settings.podReadyDelayMs = readyDelay;
    expect(renamed.code).toBe(0);
    // A deploy enqueued while the rename ran (before its move) waited behind it, then failed:
    // elder was renamed. The marker holds elder's lane position at the move, at or past the deploy's.
    expect(early.code).toBe(1);
    expect(early.stdout + early.stderr).toMatch(/app elder was renamed to younger/);
    expect(store.releases('elder')).toEqual([]);
    const earlyId = /enqueued deploy job app\.elder\.(\d+)/.exec(early.stdout + early.stderr)?.[1];
    expect(earlyId).toBeDefined();
    const marker = await readRenamed(redis, 'elder');
    expect(marker?.name).toBe('younger');
    expect(marker?.seq).toBeGreaterThanOrEqual(Number(earlyId));

    // After the rename, any job but a deploy still fails naming the new name.
    const config = await fleet.cli(['config:set', 'elder', 'GREETING=again', '--wait']);
    expect(config.code).toBe(1);
    expect(config.stdout + config.stderr).toMatch(/app elder was renamed to younger/);
    const listed = JSON.parse(await fleet.ok(['apps:list', '--all', '--json'])) as AppRow[];
    expect(listed.find((a) => a.name === 'elder')).toMatchObject({ renamedTo: 'younger' });
    // The scheduled heal leaves the old name alone (its reconcile could only fail).
    await fleet.ok(['sync', '--wait']);
    const jobs = JSON.parse(await fleet.ok(['jobs:list', '--json'])) as { type: string; lane?: string }[];
    const reconciles = jobs.filter((j) => j.type === 'reconcile').map((j) => j.lane);
    expect(reconciles).toContain('app.younger');
    expect(reconciles).not.toContain('app.elder');

    // A deploy enqueued after the rename: elder is an app again, from revision 1, as after a destroy.
    const younger = checks.objectsOf('younger');
    const fresh = await fleet.ok(['deploy', 'elder', '--image', 'registry.example.com/elder:3', '--wait']);
    expect(fresh).toMatch(/app elder was renamed to younger before this deploy was enqueued/);
    expect(fresh).toMatch(/elder: revision 1 deployed/);
    expect(store.history('elder').map((r) => [r.revision, r.status])).toEqual([[1, 'deployed']]);
    expect(store.apps.get('elder')?.spec).toMatchObject({ image: 'registry.example.com/elder:3' });
    const all = JSON.parse(await fleet.ok(['apps:list', '--all', '--json'])) as AppRow[];
    expect(all.find((a) => a.name === 'elder')).toMatchObject({
      revision: 1,
      image: 'registry.example.com/elder:3',
    });
    expect(all.find((a) => a.name === 'elder')?.renamedTo).toBeUndefined();
    expect(await fleet.ok(['apps:list'])).toMatch(/^elder\s/m);
    // The new name is untouched: its objects, revision and image.
    expect(checks.objectsOf('younger')).toEqual(younger);
    expect(all.find((a) => a.name === 'younger')).toMatchObject({
      revision: 1,
      image: 'registry.example.com/elder:1',
    });
    expect(store.history('younger').map((r) => r.revision)).toEqual([1]);
    const web = await fleet.apps.readNamespacedDeployment({ name: 'younger-web', namespace: 'default' });
    expect(web.spec?.template.spec?.containers[0]?.image).toBe('registry.example.com/elder:1');
    // And elder takes any job again.
    expect(await fleet.ok(['config:set', 'elder', 'GREETING=back', '--wait'])).toMatch(/elder: revision 2/);
  });

  it('pins a marker written before the lane position existed at the first job that meets it; the next deploy takes the name back', async () => {
    await fleet.ok(['deploy', 'vintage', '--image', 'registry.example.com/vintage:1', '--wait']);
    // As an older longshore left it: the new name, the rename's job id, no position.
    await redis.hset(
      keys.status('app.vintage'),
      RENAMED_FIELD,
      JSON.stringify({ name: 'vintage-new', jobId: 'app.vintage.99', finishedAt: 1 }),
    );
    const first = await fleet.cli([
      'deploy',
      'vintage',
      '--image',
      'registry.example.com/vintage:2',
      '--wait',
    ]);
    expect(first.code).toBe(1);
    expect(first.stdout + first.stderr).toMatch(/the rename marker of vintage had no lane position/);
    expect(first.stdout + first.stderr).toMatch(/app vintage was renamed to vintage-new/);
    expect((await readRenamed(redis, 'vintage'))?.seq).toBeGreaterThan(0);
    const second = await fleet.ok([
      'deploy',
      'vintage',
      '--image',
      'registry.example.com/vintage:3',
      '--wait',
    ]);
    expect(second).toMatch(/app vintage was renamed to vintage-new before this deploy was enqueued/);
    expect(await readRenamed(redis, 'vintage')).toBeUndefined();
  });
});
