/**
 * The supersession rule of the acquire script, against a real redis-server: a deploy is skipped
 * only for a newer deploy with no other job that counts as newer work between them (reconciles may
 * sit between); a reserved slot whose job is not added yet is unknown work and blocks; a reconcile
 * is skipped for any newer reconcile, whatever lies between. Jobs are added with the real producer
 * client; acquire is called the way the worker calls it.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '../../src/dev/private-redis.ts';
import { JobClient } from '../../src/jobs/client.ts';
import type { JobType } from '../../src/jobs/contract.ts';
import { contractFor, supersessionOf } from '../../src/jobs/contracts.ts';
import { ENVELOPE_VERSION } from '../../src/jobs/envelope.ts';
import { type LaneDecision, LaneStore } from '../../src/jobs/ordering/lane-store.ts';
import { Sealer } from '../../src/jobs/sealing.ts';

type Entry = 'deploy' | 'config' | 'reconcile' | 'scale' | 'gap';

function payloadOf(type: Exclude<Entry, 'gap'>, app: string, i: number): unknown {
  switch (type) {
    case 'deploy':
      return { app, image: `registry.example.com/${app}:1.${26 + i}` };
    case 'config':
      return { app, set: {}, unset: ['Z'] };
    case 'reconcile':
      return { app };
    case 'scale':
      return { app, processes: { web: 1 } };
  }
}

describe('supersession in the acquire script', () => {
  let redis: PrivateRedis;
  let connection: Redis;
  let jobs: JobClient;
  let lanes: LaneStore;
  let apps = 0;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    jobs = new JobClient(connection, { attempts: 1, backoffMs: 50 });
    lanes = new LaneStore(connection);
  });

  afterAll(async () => {
    await jobs?.close();
    connection?.disconnect();
    await redis?.stop();
  });

  /** A fresh app lane holding `entries` in this order; returns the lane and the job ids. */
  async function lane(entries: Entry[]): Promise<{ lane: string; ids: string[] }> {
    const app = `s${++apps}`;
    const ids: string[] = [];
    for (const [i, entry] of entries.entries()) {
      if (entry === 'gap') {
        // A producer between reserve and add: the slot exists, its job does not (yet).
        ids.push((await lanes.reserve(`app.${app}`)).jobId);
        continue;
      }
      ids.push((await jobs.enqueue(entry, payloadOf(entry, app, i), 'test')).id);
    }
    return { lane: `app.${app}`, ids };
  }

  function acquire(laneName: string, jobId: string, type: JobType): Promise<LaneDecision> {
    return lanes.acquire({
      lane: laneName,
      jobId,
      ...supersessionOf(contractFor(type)),
      attemptJson: '{}',
      graceMs: 30_000,
    });
  }

  it('supersedes a deploy by the next deploy when nothing lies between', async () => {
    const { lane: l, ids } = await lane(['deploy', 'deploy']);
    expect(await acquire(l, ids[0]!, 'deploy')).toMatchObject({ kind: 'superseded', by: ids[1] });
  });

  it('runs a deploy that is the newest of its lane (the fast path) or has only other jobs behind it', async () => {
    const alone = await lane(['deploy']);
    expect((await acquire(alone.lane, alone.ids[0]!, 'deploy')).kind).toBe('go');
    const followed = await lane(['deploy', 'config', 'scale']);
    expect((await acquire(followed.lane, followed.ids[0]!, 'deploy')).kind).toBe('go');
  });

  it('does not supersede a deploy across another mutation', async () => {
    const { lane: l, ids } = await lane(['deploy', 'config', 'deploy']);
    expect((await acquire(l, ids[0]!, 'deploy')).kind).toBe('go');
  });

  it('supersedes across reconciles, which are not newer work', async () => {
    const { lane: l, ids } = await lane(['deploy', 'reconcile', 'reconcile', 'deploy']);
    expect(await acquire(l, ids[0]!, 'deploy')).toMatchObject({ kind: 'superseded', by: ids[3] });
  });

  it('names the last deploy of the unbroken run as the one carrying the change forward', async () => {
    // deploy 1.27, 1.28 and 1.29 queued back to back, then a config, then deploy 1.31.
    const { lane: l, ids } = await lane(['deploy', 'deploy', 'deploy', 'config', 'deploy']);
    expect(await acquire(l, ids[0]!, 'deploy')).toMatchObject({ kind: 'superseded', by: ids[2] });
  });

  it('treats a reserved slot whose job is not added yet as unknown work, until the job arrives', async () => {
    const { lane: l, ids } = await lane(['deploy', 'gap', 'deploy']);
    expect((await acquire(l, ids[0]!, 'deploy')).kind).toBe('go');

    // The slow producer adds its job after all: a reconcile, which a deploy may be merged across.
    await jobs.queue.add(
      'reconcile',
      {
        v: ENVELOPE_VERSION,
        payload: { app: l.slice('app.'.length) },
        lane: l,
        seq: Number(ids[1]!.split('.').at(-1)),
        enqueuedAt: Date.now(),
        enqueuedBy: 'slow',
      },
      { jobId: ids[1]! },
    );
    expect(await acquire(l, ids[0]!, 'deploy')).toMatchObject({ kind: 'superseded', by: ids[2] });
  });

  it('does not supersede a deploy by one that leaves out a field it sets (absent keeps the current value)', async () => {
    const app = `s${++apps}`;
    const withProcesses = await jobs.enqueue(
      'deploy',
      { app, image: 'registry.example.com/x:1', processes: { web: { command: 'serve' } } },
      'test',
    );
    await jobs.enqueue('deploy', { app, image: 'registry.example.com/x:2' }, 'test');
    expect((await acquire(`app.${app}`, withProcesses.id, 'deploy')).kind).toBe('go');

    // The other way round the newer one restates everything the older one sets.
    const other = `s${++apps}`;
    const older = await jobs.enqueue('deploy', { app: other, image: 'registry.example.com/x:1' }, 'test');
    const newer = await jobs.enqueue(
      'deploy',
      { app: other, image: 'registry.example.com/x:2', processes: { web: { command: 'serve' } } },
      'test',
    );
    expect(await acquire(`app.${other}`, older.id, 'deploy')).toMatchObject({
      kind: 'superseded',
      by: newer.id,
    });
  });

  it('compares at every depth: a newer formation naming other process types does not supersede', async () => {
    const app = `s${++apps}`;
    const web = await jobs.enqueue(
      'deploy',
      { app, image: 'registry.example.com/x:1', formation: { web: { replicas: 3 } } },
      'test',
    );
    await jobs.enqueue(
      'deploy',
      { app, image: 'registry.example.com/x:2', formation: { worker: { replicas: 2 } } },
      'test',
    );
    // Formation merges per type: skipping the first would lose web=3.
    expect((await acquire(`app.${app}`, web.id, 'deploy')).kind).toBe('go');

    const other = `s${++apps}`;
    const older = await jobs.enqueue(
      'deploy',
      { app: other, image: 'registry.example.com/x:1', formation: { web: { replicas: 3 } } },
      'test',
    );
    const newer = await jobs.enqueue(
      'deploy',
      {
        app: other,
        image: 'registry.example.com/x:2',
        formation: { web: { replicas: 1 }, worker: { replicas: 2 } },
      },
      'test',
    );
    expect(await acquire(`app.${other}`, older.id, 'deploy')).toMatchObject({
      kind: 'superseded',
      by: newer.id,
    });
  });

  it("compares a deploy's env and domain changes name by name: one naming others does not supersede", async () => {
    const sealer = new Sealer('supersession-test-secret-0123456789abcdef');
    const deployWith = (app: string, image: string, extra: Record<string, unknown>) =>
      jobs.enqueue('deploy', { app, image: `registry.example.com/x:${image}`, ...extra }, 'test');
    const env = (app: string, values: Record<string, string | null>) =>
      Object.fromEntries(
        Object.entries(values).map(([k, v]) => [k, v === null ? null : sealer.seal(v, `config:${app}:${k}`)]),
      );

    // Skipping a deploy that unsets OLD for one that only sets NEW would keep OLD: it runs.
    const a = `s${++apps}`;
    const unsets = await deployWith(a, '1', { env: env(a, { OLD: null }) });
    await deployWith(a, '2', { env: env(a, { NEW: 'v' }) });
    expect((await acquire(`app.${a}`, unsets.id, 'deploy')).kind).toBe('go');

    // A domain removed by the older one and not named by the newer one: it runs.
    const b = `s${++apps}`;
    const removes = await deployWith(b, '1', { domains: { 'b.example.com': 'remove' } });
    await deployWith(b, '2', { domains: { 'c.example.com': 'add' } });
    expect((await acquire(`app.${b}`, removes.id, 'deploy')).kind).toBe('go');

    // The newer one names every variable and domain the older one changes: its run decides them.
    const c = `s${++apps}`;
    const older = await deployWith(c, '1', {
      env: env(c, { K: 'old', OLD: null }),
      domains: { 'b.example.com': 'remove' },
    });
    const newer = await deployWith(c, '2', {
      env: env(c, { K: 'new', OLD: 'back' }),
      domains: { 'b.example.com': 'add' },
    });
    expect(await acquire(`app.${c}`, older.id, 'deploy')).toMatchObject({ kind: 'superseded', by: newer.id });
  });

  it('bounds the scan: past it, the older deploy simply runs', async () => {
    const { lane: l, ids } = await lane(['deploy', ...Array<Entry>(70).fill('reconcile'), 'deploy']);
    expect((await acquire(l, ids[0]!, 'deploy')).kind).toBe('go');
  });

  it('supersedes a reconcile by the newest reconcile whatever lies between', async () => {
    const { lane: l, ids } = await lane(['reconcile', 'config', 'deploy', 'reconcile']);
    expect(await acquire(l, ids[0]!, 'reconcile')).toMatchObject({ kind: 'superseded', by: ids[3] });
  });
});
