/**
 * Each ordering script, called the way the fleet calls it (LaneStore), on an empty lane and on a
 * busy one, against a real redis-server, with its reply and the keys it leaves. Redis 7 stops a
 * script that touches an undeclared global when that line runs, so running every script (the
 * supersession walk included) also checks that its names resolve.
 *
 * The busy lane, built by hand so each entry is in a known state (BullMQ's job hash is only read
 * for `name`, `data` and longshore's fields; its completed and delayed sets are plain sorted sets):
 *
 *   .1 scale    finished: done marker written, BullMQ's completion not yet
 *   .2 scale    completed by BullMQ (the finish script failed)
 *   .3 deploy   live: the head once .1 and .2 are dropped
 *   .4 deploy   restates .3, parked in BullMQ's delayed set
 *   .5 —        reserved, its job not added yet (unknown work)
 *   .6 config
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '../../../src/dev/private-redis.ts';
import { KEY_PREFIX, keys } from '../../../src/jobs/keys.ts';
import { LaneStore } from '../../../src/jobs/ordering/lane-store.ts';

const GRACE_MS = 60_000;
const PASSABLE = ['reconcile', 'sync', 'storage-status'];
const DONE = JSON.stringify({ state: 'completed' });

describe('the ordering scripts on an empty and a busy lane', () => {
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

  const freshLane = () => `app.lua${++n}`;

  /** Adds a job hash the way BullMQ would hold it (only what the scripts read). */
  async function addJob(id: string, name: string, payload: unknown, fields: Record<string, string> = {}) {
    await client.hset(keys.job(id), { name, data: JSON.stringify({ payload }), ...fields });
  }

  async function busyLane(): Promise<{ lane: string; ids: string[] }> {
    const lane = freshLane();
    const app = lane.slice('app.'.length);
    const ids: string[] = [];
    for (const key of ['', '', 'deploy', 'deploy', '', '']) ids.push((await lanes.reserve(lane, key)).jobId);
    const [finished, completed, head, newer, , config] = ids as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    await addJob(finished, 'scale', { app, processes: { web: 1 } }, { lsDone: DONE });
    await addJob(completed, 'scale', { app, processes: { web: 2 } });
    await client.zadd(`${keys.bull(0)}completed`, Date.now(), completed);
    await addJob(head, 'deploy', { app, image: 'registry.example.com/a:1' });
    await addJob(newer, 'deploy', { app, image: 'registry.example.com/a:2' });
    await client.zadd(`${keys.bull(0)}delayed`, Date.now() + 1000, newer);
    await addJob(config, 'config', { app, set: { K: 'v' } });
    return { lane, ids };
  }

  /** Every key of a lane that exists, by its part name. */
  async function laneKeys(lane: string): Promise<string[]> {
    const parts = {
      seq: keys.laneSeq(lane),
      pending: keys.lanePending(lane),
      reserved: keys.laneReserved(lane),
      latest: keys.laneLatest(lane),
      status: keys.status(lane),
    };
    const present: string[] = [];
    for (const [part, key] of Object.entries(parts)) if (await client.exists(key)) present.push(part);
    return present;
  }

  describe('reserve', () => {
    it('on an empty lane: the first position, reserved now, and the newest of its supersede key', async () => {
      const lane = freshLane();
      const before = Date.now();
      expect(await lanes.reserve(lane, 'deploy')).toEqual({ jobId: `${lane}.1`, seq: 1 });
      expect(await lanes.pending(lane)).toEqual([`${lane}.1`]);
      expect(Number(await client.hget(keys.laneReserved(lane), `${lane}.1`))).toBeGreaterThanOrEqual(before);
      expect(await client.hgetall(keys.laneLatest(lane))).toEqual({ deploy: `${lane}.1` });
      expect(await client.sismember(keys.statusLanes(0), lane)).toBe(1);
    });

    it('on a busy lane: the next position, skipping an id an older job still holds', async () => {
      const { lane, ids } = await busyLane();
      // A job kept from before the lane's counter was reset holds the next id.
      await addJob(`${lane}.7`, 'scale', {});
      expect(await lanes.reserve(lane, 'deploy')).toEqual({ jobId: `${lane}.8`, seq: 8 });
      expect(await lanes.pending(lane)).toEqual([...ids, `${lane}.8`]);
      expect(await client.hget(keys.laneLatest(lane), 'deploy')).toBe(`${lane}.8`);
    });
  });

  describe('reserve with a barrier lane (a rename holding the lane of its new name)', () => {
    it("takes both lanes' next positions in one call; the barrier blocks the other lane until its job has finished", async () => {
      const { lane, ids } = await busyLane();
      const own = freshLane();
      const rename = await lanes.reserve(own, '', lane);
      expect(rename).toEqual({ jobId: `${own}.1`, seq: 1, barrierSeq: 7 });
      expect(await lanes.pending(own)).toEqual([rename.jobId]);
      expect(await lanes.pending(lane)).toEqual([...ids, rename.jobId]);
      expect(await client.hexists(keys.laneReserved(lane), rename.jobId)).toBe(1);
      // No supersede key is touched, and the lane's own counter moved on: the next job is .8.
      expect(await client.hget(keys.laneLatest(lane), 'deploy')).toBe(ids[3]);
      const later = (await lanes.reserve(lane)).jobId;
      expect(later).toBe(`${lane}.8`);
      await addJob(later, 'deploy', {});

      // The rename heads its own lane but not the other one while jobs enqueued there before it
      // are unfinished (the runner parks it there).
      await addJob(rename.jobId, 'rename', {});
      expect(await lanes.turn(own, rename.jobId, GRACE_MS)).toBe('head');
      expect(await lanes.turn(lane, rename.jobId, GRACE_MS)).toBe('behind');
      // Everything before the barrier finished: the lane waits for the rename (running elsewhere).
      for (const id of ids.slice(2))
        await lanes.finish({ jobId: id, lane, done: DONE, status: { last: id } });
      expect(await lanes.turn(lane, rename.jobId, GRACE_MS)).toBe('head');
      expect(await lanes.acquire({ lane, jobId: later, attemptJson: '{}', graceMs: GRACE_MS })).toEqual({
        kind: 'wait',
        head: rename.jobId,
      });
      // The rename finishes in its own lane: its done marker releases this one.
      await lanes.finish({ jobId: rename.jobId, lane: own, done: DONE, status: { last: rename.jobId } });
      expect(await lanes.isHead(lane, later, GRACE_MS)).toBe(true);
      expect(await lanes.pending(lane)).toEqual([later]);
    });

    it('a job not in a lane is "absent" there: a barrier given up is nothing to wait for', async () => {
      const { lane } = await busyLane();
      expect(await lanes.turn(lane, 'app.elsewhere.1', GRACE_MS)).toBe('absent');
    });
  });

  describe('unreserve', () => {
    it('on an empty lane: nothing to undo, and no key is created', async () => {
      const lane = freshLane();
      await lanes.unreserve(lane, `${lane}.1`, 'deploy');
      expect(await laneKeys(lane)).toEqual([]);
    });

    it('on a busy lane: only that job leaves, and the supersede key only when it was the newest', async () => {
      const { lane, ids } = await busyLane();
      await lanes.unreserve(lane, ids[2]!, 'deploy');
      expect(await client.hget(keys.laneLatest(lane), 'deploy')).toBe(ids[3]);
      await lanes.unreserve(lane, ids[3]!, 'deploy');
      expect(await client.hget(keys.laneLatest(lane), 'deploy')).toBeNull();
      expect(await lanes.pending(lane)).toEqual([ids[0], ids[1], ids[4], ids[5]]);
      expect((await client.hkeys(keys.laneReserved(lane))).sort()).toEqual(
        [ids[0], ids[1], ids[4], ids[5]].sort(),
      );
    });
  });

  describe('acquire', () => {
    it('on an empty lane: a job not in it joins at the tail and goes, as attempt 1', async () => {
      const lane = freshLane();
      const id = `${lane}.7`;
      await addJob(id, 'scale', {});
      const reply = await lanes.acquire({ lane, jobId: id, attemptJson: '{"a":1}', graceMs: GRACE_MS });
      expect(reply).toEqual({
        kind: 'go',
        seq: 1,
        requeued: true,
        attemptNumber: 1,
        previousAttemptsJson: [],
      });
      expect(await lanes.pending(lane)).toEqual([id]);
      expect(await client.hmget(keys.job(id), 'lsAN', 'lsA:1')).toEqual(['1', '{"a":1}']);
    });

    it('on a busy lane: drops finished heads, waits, supersedes, goes, and answers a done job from its marker', async () => {
      const { lane, ids } = await busyLane();
      const [finished, , head, newer] = ids as [string, string, string, string];
      const deploy = { supersedeKey: 'deploy', supersedeRule: 'adjacent' as const, passable: PASSABLE };
      const at = (jobId: string, attemptJson: string, extra = {}) =>
        lanes.acquire({ lane, jobId, attemptJson, graceMs: GRACE_MS, ...extra });

      expect(await at(newer, '{}', deploy)).toEqual({ kind: 'wait', head });
      // The finished and the completed head were dropped on the way.
      expect(await lanes.pending(lane)).toEqual(ids.slice(2));
      expect(await client.hexists(keys.laneReserved(lane), finished)).toBe(0);

      // .4 restates .3 and only the unknown slot .5 follows it: .4 carries .3's change.
      expect(await at(head, '{}', deploy)).toEqual({ kind: 'superseded', by: newer, seq: 3 });
      expect(await client.hexists(keys.job(head), 'lsAN')).toBe(0);

      // Without the supersede key the head runs; a second delivery is attempt 2 and sees the first.
      expect(await at(head, '{"try":1}')).toEqual({
        kind: 'go',
        seq: 3,
        requeued: false,
        attemptNumber: 1,
        previousAttemptsJson: [],
      });
      expect(await at(head, '{"try":2}')).toEqual({
        kind: 'go',
        seq: 3,
        requeued: false,
        attemptNumber: 2,
        previousAttemptsJson: ['{"try":1}'],
      });

      expect(await at(finished, '{}')).toEqual({ kind: 'done', done: DONE });
    });
  });

  describe('peek', () => {
    it('on an empty lane: a job not in it is not the head, and the lane stays empty', async () => {
      const lane = freshLane();
      expect(await lanes.isHead(lane, `${lane}.1`, GRACE_MS)).toBe(false);
      expect(await laneKeys(lane)).toEqual([]);
    });

    it('on a busy lane: the head is the first live job once finished ones are dropped', async () => {
      const { lane, ids } = await busyLane();
      expect(await lanes.isHead(lane, ids[3]!, GRACE_MS)).toBe(false);
      expect(await lanes.isHead(lane, ids[2]!, GRACE_MS)).toBe(true);
      expect(await lanes.pending(lane)).toEqual(ids.slice(2));
      // The unknown slot blocks the lane within its grace, and is given up after it.
      await lanes.finish({ jobId: ids[2]!, lane, done: DONE, status: { last: ids[2]! } });
      await lanes.finish({ jobId: ids[3]!, lane, done: DONE, status: { last: ids[3]! } });
      expect(await lanes.isHead(lane, ids[5]!, GRACE_MS)).toBe(false);
      await client.hset(keys.laneReserved(lane), ids[4]!, Date.now() - GRACE_MS - 1);
      expect(await lanes.isHead(lane, ids[5]!, GRACE_MS)).toBe(true);
      expect(await lanes.pending(lane)).toEqual([ids[5]]);
    });
  });

  describe('finish', () => {
    it('on an empty lane: records the outcome and the projection, and there is no next job', async () => {
      const lane = freshLane();
      const id = `${lane}.1`;
      await addJob(id, 'scale', {});
      const reply = await lanes.finish({
        jobId: id,
        lane,
        done: DONE,
        endedAttempt: { attemptNumber: 1, attemptJson: '{"end":1}' },
        status: { last: id, updatedAt: 5 },
      });
      expect(reply).toEqual({ nextDelayed: false });
      expect(await client.hmget(keys.job(id), 'lsDone', 'lsA:1')).toEqual([DONE, '{"end":1}']);
      expect(await client.hgetall(keys.status(lane))).toEqual({ last: id, updatedAt: '5' });
      expect(await client.sismember(keys.statusLanes(0), lane)).toBe(1);
    });

    it('on a busy lane: the head leaves and the parked job behind it is named for promotion', async () => {
      const { lane, ids } = await busyLane();
      const [, , head, newer] = ids as [string, string, string, string];
      await lanes.acquire({ lane, jobId: head, attemptJson: '{}', graceMs: GRACE_MS });
      const reply = await lanes.finish({
        jobId: head,
        lane,
        supersedeKey: 'deploy',
        done: DONE,
        status: { last: head },
      });
      expect(reply).toEqual({ next: newer, nextDelayed: true });
      expect(await lanes.pending(lane)).toEqual(ids.slice(3));
      // .3 was not the newest deploy: the lane's entry for the key still names .4.
      expect(await client.hget(keys.laneLatest(lane), 'deploy')).toBe(newer);
      expect(await client.hget(keys.job(head), 'lsDone')).toBe(DONE);
      // Without an attempt number the open record is left as it was.
      expect(await client.hget(keys.job(head), 'lsA:1')).toBe('{}');
      // The next job is not parked: named, not for promotion.
      expect(
        await lanes.finish({
          jobId: newer,
          lane,
          supersedeKey: 'deploy',
          done: DONE,
          status: { last: newer },
        }),
      ).toEqual({
        next: ids[4],
        nextDelayed: false,
      });
      expect(await client.hget(keys.laneLatest(lane), 'deploy')).toBeNull();
    });
  });

  describe('start-unordered', () => {
    it('on a job with no history: attempt 1', async () => {
      const id = `run.${++n}`;
      await addJob(id, 'run', {});
      expect(await lanes.startUnordered(id, '{"a":1}')).toEqual({
        kind: 'go',
        attemptNumber: 1,
        previousAttemptsJson: [],
      });
      expect(await client.hget(keys.job(id), 'lsA:1')).toBe('{"a":1}');
    });

    it('on a job with history: the next attempt with the earlier ones, or its done marker', async () => {
      const id = `run.${++n}`;
      await addJob(id, 'run', {}, { lsAN: '2', 'lsA:1': '{"a":1}' });
      expect(await lanes.startUnordered(id, '{"a":3}')).toEqual({
        kind: 'go',
        attemptNumber: 3,
        previousAttemptsJson: ['{"a":1}', ''],
      });
      await client.hset(keys.job(id), 'lsDone', DONE);
      expect(await lanes.startUnordered(id, '{"a":4}')).toEqual({ kind: 'done', done: DONE });
      expect(await client.hget(keys.job(id), 'lsAN')).toBe('3');
    });
  });

  describe('end-attempt', () => {
    it('on a job whose hash is gone: writes nothing', async () => {
      const id = `run.${++n}`;
      await lanes.endAttempt(id, { attemptNumber: 1, attemptJson: '{"end":1}' }, DONE);
      expect(await client.exists(keys.job(id))).toBe(0);
    });

    it('on a job with attempts: replaces the record, and records the outcome when given', async () => {
      const id = `run.${++n}`;
      await addJob(id, 'run', {}, { lsAN: '2', 'lsA:1': '{}', 'lsA:2': '{}' });
      await lanes.endAttempt(id, { attemptNumber: 2, attemptJson: '{"end":2}' });
      expect(await client.hmget(keys.job(id), 'lsA:1', 'lsA:2', 'lsDone')).toEqual(['{}', '{"end":2}', null]);
      await lanes.endAttempt(id, { attemptNumber: 2, attemptJson: '{"end":3}' }, DONE);
      expect(await client.hmget(keys.job(id), 'lsA:2', 'lsDone')).toEqual(['{"end":3}', DONE]);
    });
  });

  it('keeps every key it touches under the key prefix the fleet uses', async () => {
    const all = await client.keys('*');
    expect(all.filter((k) => !k.startsWith(`${KEY_PREFIX}:`))).toEqual([]);
  });
});
