/**
 * A rename's last steps against a real redis-server: the projection move (src/jobs/renamed.ts) run
 * again after it was done, as a retry killed between `uninstalled`… and `moved` runs it; and the
 * marker the rename's end stamps (the finish script, through LaneStore), which decides what later
 * jobs of the old name do. The same steps through real worker processes:
 * test/e2e/rename-crash.test.ts.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '../../src/dev/private-redis.ts';
import { PROCESS_TYPES_FIELD } from '../../src/jobs/app-processes.ts';
import { keys } from '../../src/jobs/keys.ts';
import { LaneStore } from '../../src/jobs/ordering/lane-store.ts';
import {
  moveProjection,
  parseRenamed,
  RENAMED_FIELD,
  readRenamed,
  renamedVerdict,
} from '../../src/jobs/renamed.ts';
import { readLaneStatus, statusOfRelease, statusOnSuccess } from '../../src/jobs/status.ts';

let server: PrivateRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startPrivateRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

const RELEASE = {
  revision: '3',
  image: 'registry.example.com/shop:3',
  deployedRevision: JSON.stringify({ revision: 3, image: 'registry.example.com/shop:3' }),
  [PROCESS_TYPES_FIELD]: JSON.stringify(['web', 'worker']),
};

/** Both lanes' hashes, less `updatedAt` (each move stamps it). */
async function projections(from: string, to: string) {
  const read = async (app: string) => {
    const { updatedAt: _u, ...hash } = await redis.hgetall(keys.status(`app.${app}`));
    return hash;
  };
  return {
    from: await read(from),
    to: await read(to),
    lanes: (await redis.smembers(keys.statusLanes)).sort(),
  };
}

describe('the projection move of a rename', () => {
  it('run again after it was done (a retry killed before `moved` was recorded) changes nothing', async () => {
    await redis.hset(keys.status('app.shop'), { ...RELEASE, last: '{"jobId":"app.shop.4"}' });
    // NEW's lane already has a marker of its own: an earlier rename away from NEW.
    await redis.hset(keys.status('app.store'), RENAMED_FIELD, '{"name":"elsewhere","jobId":"app.store.2"}');
    await moveProjection(redis, 'shop', 'store', 'app.shop.5');
    const once = await projections('shop', 'store');
    expect(once.to).toEqual(RELEASE);
    expect(parseRenamed(once.from[RENAMED_FIELD])).toEqual({ name: 'store', jobId: 'app.shop.5' });
    expect(once.lanes).toContain('app.store');

    await moveProjection(redis, 'shop', 'store', 'app.shop.5');
    expect(await projections('shop', 'store')).toEqual(once);
  });

  it("run again after the rename's end emptied OLD's fields, NEW keeps what it took", async () => {
    // A delivery after the end is answered from the done marker and never reaches the handler;
    // should a move run again anyway, it must not wipe NEW's revision with OLD's empty fields.
    await redis.hset(keys.status('app.cafe'), RELEASE);
    await moveProjection(redis, 'cafe', 'bistro', 'app.cafe.2');
    await redis.hset(
      keys.status('app.cafe'),
      statusOfRelease({ destroyed: true }, { jobId: 'app.cafe.2', at: 1 }),
    );
    await moveProjection(redis, 'cafe', 'bistro', 'app.cafe.2');
    const after = await projections('cafe', 'bistro');
    expect(after.to).toEqual(RELEASE);
    expect(parseRenamed(after.from[RENAMED_FIELD])).toEqual({ name: 'bistro', jobId: 'app.cafe.2' });
  });

  it("the rename's end stamps the marker with its time; jobs enqueued before fail, a deploy after takes the name back", async () => {
    const lanes = new LaneStore(redis);
    const { jobId } = await lanes.reserve('app.old', '');
    await redis.hset(keys.status('app.old'), RELEASE);
    await moveProjection(redis, 'old', 'new', jobId);
    // Written by the move without a time: while the rename runs, it is the head of OLD's lane.
    expect((await readRenamed(redis, 'old'))?.finishedAt).toBeUndefined();

    const at = Date.now();
    await lanes.finish({
      jobId,
      lane: 'app.old',
      done: '{"state":"completed"}',
      status: {
        ...statusOnSuccess({ id: jobId, type: 'rename' }, at, {}),
        ...statusOfRelease({ destroyed: true, renamedTo: 'new' }, { jobId, at }),
      },
    });
    const marker = (await readRenamed(redis, 'old'))!;
    expect(marker).toEqual({ name: 'new', jobId, finishedAt: at });
    // OLD's release fields are gone (NEW has them); the lane reads as renamed, not live.
    const status = await readLaneStatus(redis, 'app.old');
    expect(status).toMatchObject({ renamedTo: 'new' });
    expect(status?.revision).toBeUndefined();

    expect(renamedVerdict(marker, { id: jobId, type: 'rename', enqueuedAt: at - 10 })).toBe('run');
    expect(renamedVerdict(marker, { id: 'app.old.2', type: 'deploy', enqueuedAt: at - 1 })).toBe('refuse');
    expect(renamedVerdict(marker, { id: 'app.old.3', type: 'deploy', enqueuedAt: at + 1 })).toBe('reclaim');
    expect(renamedVerdict(marker, { id: 'app.old.4', type: 'config', enqueuedAt: at + 1 })).toBe('refuse');
    // A marker an older longshore wrote (no time) counts as a rename finished at time 0.
    const legacy = parseRenamed(JSON.stringify({ name: 'new', jobId }))!;
    expect(renamedVerdict(legacy, { id: 'app.old.5', type: 'deploy', enqueuedAt: 1 })).toBe('reclaim');
    expect(renamedVerdict(legacy, { id: 'app.old.6', type: 'scale', enqueuedAt: at })).toBe('refuse');
  });
});
