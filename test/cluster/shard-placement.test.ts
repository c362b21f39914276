/**
 * Queue shards on a real 3-primary Redis Cluster (LONGSHORE_QUEUE_SHARDS=3): each shard's keys are
 * on their own primary, an app's jobs, lane and status are in its shard's slot, and a process with
 * another K is refused before it writes; a job of two lanes in two shards holds both.
 */
process.env.LONGSHORE_TEST_REDIS = 'cluster';
process.env.LONGSHORE_QUEUE_SHARDS = '3';

const { afterAll, beforeAll, describe, expect, it } = await import('vitest');
const { JobClient } = await import('../../src/jobs/client.ts');
const { TWO_LANE_LOCK } = await import('../../src/jobs/cross-shard-lanes.ts');
const { keys } = await import('../../src/jobs/keys.ts');
const { ensureShardLayout, ShardLayoutError } = await import('../../src/jobs/shard-guard.ts');
const { allShards, shardOfLane } = await import('../../src/jobs/shards.ts');
const { listLaneStatuses } = await import('../../src/jobs/status.ts');
const { startTestRedis } = await import('../helpers/test-redis.ts');

describe('queue shards on a 3-primary Redis Cluster', () => {
  let redis: Awaited<ReturnType<typeof startTestRedis>>;
  let jobs: InstanceType<typeof JobClient>;
  // Twelve apps: with three shards every shard gets some (FNV-1a spreads them; checked below).
  const apps = Array.from({ length: 12 }, (_, i) => `app${i}`);

  beforeAll(async () => {
    redis = await startTestRedis();
    jobs = new JobClient(redis.connect(), { attempts: 1, backoffMs: 50 });
    jobs.onQueueError(() => undefined);
  });

  afterAll(async () => {
    await jobs?.close();
    jobs?.connection.disconnect();
    await redis?.stop();
  });

  it('puts each shard on its own primary', async () => {
    const primaries = await Promise.all(allShards().map((s) => redis.primaryOf!(keys.bull(s))));
    expect(new Set(primaries).size).toBe(3);
  });

  it('adds each app’s jobs to its shard’s queue, with its lane on the same primary', async () => {
    const shards = new Set(apps.map((app) => shardOfLane(`app.${app}`)));
    expect(shards.size).toBe(3);
    for (const app of apps) {
      const job = await jobs.enqueue('scale', { app, processes: { web: 1 } }, 'test');
      const shard = shardOfLane(`app.${app}`);
      expect(job.id).toBe(`app.${app}.1`);
      expect(await jobs.queues[shard]!.getJobState(job.id)).toBe('waiting');
      for (const other of allShards().filter((s) => s !== shard))
        expect(await jobs.queues[other]!.getJob(job.id)).toBeUndefined();
      expect(await redis.primaryOf!(keys.lanePending(`app.${app}`))).toBe(
        await redis.primaryOf!(keys.bull(shard)),
      );
    }
    // The status projection lists lanes of every shard.
    const lanes = (await listLaneStatuses(jobs.connection, 'app')).map((s) => s.lane).sort();
    expect(lanes).toEqual(apps.map((a) => `app.${a}`).sort());
  });

  it('refuses a process with another K, naming both', async () => {
    await expect(ensureShardLayout(jobs.connection, 3)).resolves.toBeUndefined();
    const refused = ensureShardLayout(jobs.connection, 2);
    await expect(refused).rejects.toBeInstanceOf(ShardLayoutError);
    await expect(refused).rejects.toThrow(
      /holds the fleet's jobs in 3 queue shards.*LONGSHORE_QUEUE_SHARDS=2/,
    );
  });

  it('reserves a job of two lanes in two shards in both: its own lane, and a pinned hold in the other', async () => {
    const a = apps.find((x) => shardOfLane(`app.${x}`) === 0)!;
    const b = apps.find((x) => shardOfLane(`app.${x}`) === 1)!;
    const rename = await jobs.enqueue('rename', { app: a, newName: b }, 'test');
    expect(rename.id).toBe(`app.${a}.2`);
    expect(await jobs.queues[0]!.getJobState(rename.id)).toBe('waiting');
    expect(await jobs.connection.zrange(keys.lanePending(`app.${a}`), 0, -1)).toContain(rename.id);
    expect(await jobs.connection.zrange(keys.lanePending(`app.${b}`), 0, -1)).toEqual([
      `app.${b}.1`,
      rename.id,
    ]);
    // Pinned: the other shard cannot see the job's hash, so its clean-up must never drop the hold.
    const at = Number(await jobs.connection.hget(keys.laneReserved(`app.${b}`), rename.id));
    expect(at).toBeGreaterThan(Date.now() + 365 * 24 * 3600 * 1000);
    expect(await jobs.connection.exists(TWO_LANE_LOCK)).toBe(0);
  });
});
