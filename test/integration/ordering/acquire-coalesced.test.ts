/**
 * The coalesced acquire (acquire-batcher.ts, acquire-many.lua): acquire calls made in the same
 * tick go to Redis as one script call, and each gets the answer it would get alone, in call order.
 * Against a real redis-server; job hashes are written the way BullMQ holds them (only what the
 * scripts read).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '../../../src/dev/private-redis.ts';
import { keys } from '../../../src/jobs/keys.ts';
import { ACQUIRE_BATCH_MAX, AcquireError } from '../../../src/jobs/ordering/acquire-batcher.ts';
import { LaneStore } from '../../../src/jobs/ordering/lane-store.ts';

const GRACE_MS = 60_000;

describe('acquire calls of one tick, coalesced into one script call', () => {
  let redis: PrivateRedis;
  let client: Redis;
  let lanes: LaneStore;
  let n = 0;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    client = new Redis(redis.url, { maxRetriesPerRequest: null });
    lanes = new LaneStore(client);
  });

  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  const freshLane = () => `app.batch${++n}`;

  /** Reserves `count` positions in `lane` and adds their jobs, as a producer does. */
  async function queued(lane: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { jobId } = await lanes.reserve(lane);
      await client.hset(keys.job(jobId), { name: 'scale', data: JSON.stringify({ payload: {} }) });
      ids.push(jobId);
    }
    return ids;
  }

  const acquire = (store: LaneStore, lane: string, jobId: string) =>
    store.acquire({ lane, jobId, attemptJson: JSON.stringify({ by: jobId }), graceMs: GRACE_MS });

  /** Script calls Redis has run so far (EVALSHA and EVAL). */
  async function scriptCalls(): Promise<number> {
    const info = await client.info('commandstats');
    let calls = 0;
    for (const m of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)) calls += Number(m[1]);
    return calls;
  }

  it('jobs of the same lane and of different lanes: one call, FIFO and exclusion as alone', async () => {
    const a = freshLane();
    const b = freshLane();
    const [a1, a2, a3] = (await queued(a, 3)) as [string, string, string];
    const [b1, b2] = (await queued(b, 2)) as [string, string];
    const before = await scriptCalls();
    // Picked out of order, as several worker slots may pick them.
    const decisions = await Promise.all([
      acquire(lanes, a, a2),
      acquire(lanes, b, b1),
      acquire(lanes, a, a1),
      acquire(lanes, a, a3),
      acquire(lanes, b, b2),
    ]);
    expect((await scriptCalls()) - before).toBe(1);
    const [da2, db1, da1, da3, db2] = decisions;
    expect(da2).toEqual({ kind: 'wait', head: a1 });
    expect(da1).toMatchObject({ kind: 'go', seq: 1, attemptNumber: 1 });
    expect(da3).toEqual({ kind: 'wait', head: a1 });
    expect(db1).toMatchObject({ kind: 'go', seq: 1, attemptNumber: 1 });
    expect(db2).toEqual({ kind: 'wait', head: b1 });
    // Only the jobs that go recorded an attempt.
    expect(await client.hget(keys.job(a1), 'lsAN')).toBe('1');
    expect(await client.hget(keys.job(a2), 'lsAN')).toBeNull();
    expect(await lanes.pending(a)).toEqual([a1, a2, a3]);

    // Once the head has finished, the next job of the lane goes, and only it.
    await lanes.finish({ jobId: a1, lane: a, done: '{}', status: { last: '{}' } });
    const [again3, again2] = await Promise.all([acquire(lanes, a, a3), acquire(lanes, a, a2)]);
    expect(again3).toEqual({ kind: 'wait', head: a2 });
    expect(again2).toMatchObject({ kind: 'go', seq: 2 });
  });

  it('a job whose check fails rejects alone; the others of the batch get their answers', async () => {
    const lane = freshLane();
    const other = freshLane();
    const [good] = (await queued(lane, 1)) as [string];
    const [broken] = (await queued(other, 1)) as [string];
    // A job key of the wrong type makes the script's HGET raise inside that job's check.
    await client.del(keys.job(broken));
    await client.set(keys.job(broken), 'not a hash');
    const [bad, ok] = await Promise.allSettled([acquire(lanes, other, broken), acquire(lanes, lane, good)]);
    expect(bad.status).toBe('rejected');
    const reason = (bad as PromiseRejectedResult).reason;
    expect(reason).toBeInstanceOf(AcquireError);
    expect((reason as AcquireError).jobId).toBe(broken);
    expect((reason as Error).message).toMatch(/WRONGTYPE/);
    expect(ok).toMatchObject({ status: 'fulfilled', value: { kind: 'go', attemptNumber: 1 } });
  });

  it('a worker that crashed after the batch acquire: the redelivered job goes again as its next attempt, the lane still waits', async () => {
    const lane = freshLane();
    const [first, second] = (await queued(lane, 2)) as [string, string];
    const crashed = new Redis(redis.url, { maxRetriesPerRequest: null });
    const [went, waited] = await Promise.all([
      acquire(new LaneStore(crashed), lane, first),
      acquire(new LaneStore(crashed), lane, second),
    ]);
    expect(went).toMatchObject({ kind: 'go', attemptNumber: 1 });
    expect(waited).toEqual({ kind: 'wait', head: first });
    crashed.disconnect(); // the process dies before the handler starts; nothing else was written

    // BullMQ redelivers the stalled job to another worker (a fresh connection and LaneStore).
    const [redelivered, behind] = await Promise.all([
      acquire(lanes, lane, first),
      acquire(lanes, lane, second),
    ]);
    expect(redelivered).toEqual({
      kind: 'go',
      seq: 1,
      requeued: false,
      attemptNumber: 2,
      previousAttemptsJson: [JSON.stringify({ by: first })],
    });
    expect(behind).toEqual({ kind: 'wait', head: first });
  });

  it(`more calls in one tick than ${ACQUIRE_BATCH_MAX}: split into calls, one job of the lane goes`, async () => {
    const lane = freshLane();
    const ids = await queued(lane, ACQUIRE_BATCH_MAX + 6);
    const before = await scriptCalls();
    const decisions = await Promise.all(ids.map((id) => acquire(lanes, lane, id)));
    expect((await scriptCalls()) - before).toBe(2);
    expect(decisions.filter((d) => d.kind === 'go')).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ kind: 'go', seq: 1 });
    expect(decisions.slice(1).every((d) => d.kind === 'wait' && d.head === ids[0])).toBe(true);
  });
});
