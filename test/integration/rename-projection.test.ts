/**
 * A rename's last steps against a real redis-server: the projection move (src/jobs/renamed.ts) run
 * again after it was done, as a retry killed between `uninstalled`… and `moved` runs it; and the
 * marker the move writes — OLD's lane position at that moment — which decides, through positions
 * reserved in real lanes (LaneStore), what later jobs of the old name do: with the rename's end
 * recorded, with a rename that stalled after the move (no end), and for markers written before the
 * position existed. The same steps through real worker processes: test/e2e/rename-crash.test.ts
 * and test/e2e/rename.test.ts.
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
  renamedDecision,
} from '../../src/jobs/renamed.ts';
import { readLaneStatus, statusOfRelease, statusOnSuccess } from '../../src/jobs/status.ts';

let server: PrivateRedis;
let redis: Redis;
let lanes: LaneStore;

beforeAll(async () => {
  server = await startPrivateRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
  lanes = new LaneStore(redis);
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
    lanes: (await redis.smembers(keys.statusLanes(0))).sort(),
  };
}

/** A job of `app`'s lane as the runner sees it: its id, type and the position its producer reserved. */
async function enqueue(app: string, type: string, barrierApp?: string) {
  const { jobId, seq } = await lanes.reserve(`app.${app}`, '', barrierApp ? `app.${barrierApp}` : '');
  return { id: jobId, type, seq };
}

const verdict = async (app: string, job: { id: string; type: string; seq: number }) =>
  (await renamedDecision(redis, app, job))?.verdict;

describe('the projection move of a rename', () => {
  it('run again after it was done (a retry killed before `moved` was recorded) changes nothing', async () => {
    await redis.hset(keys.status('app.shop'), { ...RELEASE, last: '{"jobId":"app.shop.4"}' });
    // NEW's lane already has a marker of its own: an earlier rename away from NEW.
    await redis.hset(keys.status('app.store'), RENAMED_FIELD, '{"name":"elsewhere","jobId":"app.store.2"}');
    const rename = await enqueue('shop', 'rename', 'store');
    await moveProjection(redis, 'shop', 'store', rename.id);
    const once = await projections('shop', 'store');
    expect(once.to).toEqual(RELEASE);
    expect(parseRenamed(once.from[RENAMED_FIELD])).toEqual({
      name: 'store',
      jobId: rename.id,
      seq: rename.seq,
    });
    expect(once.lanes).toContain('app.store');

    // Jobs enqueued between the two moves do not move the marker's position.
    await enqueue('shop', 'deploy');
    await moveProjection(redis, 'shop', 'store', rename.id);
    expect(await projections('shop', 'store')).toEqual(once);
  });

  it("run again after the rename's end emptied OLD's fields, NEW keeps what it took", async () => {
    // A delivery after the end is answered from the done marker and never reaches the handler;
    // should a move run again anyway, it must not wipe NEW's revision with OLD's empty fields.
    await redis.hset(keys.status('app.cafe'), RELEASE);
    const rename = await enqueue('cafe', 'rename', 'bistro');
    await moveProjection(redis, 'cafe', 'bistro', rename.id);
    await redis.hset(keys.status('app.cafe'), statusOfRelease({ destroyed: true }));
    await moveProjection(redis, 'cafe', 'bistro', rename.id);
    const after = await projections('cafe', 'bistro');
    expect(after.to).toEqual(RELEASE);
    expect(parseRenamed(after.from[RENAMED_FIELD])).toEqual({
      name: 'bistro',
      jobId: rename.id,
      seq: rename.seq,
    });
  });
});

describe('what a job of the old name does (renamedDecision)', () => {
  it('a marker at position N: a deploy at or before N fails, one after N takes the name back, any other job fails', async () => {
    await enqueue('old', 'deploy');
    const rename = await enqueue('old', 'rename', 'new');
    // Enqueued while the rename ran (queued behind it), before the move.
    const during = await enqueue('old', 'deploy');
    const configDuring = await enqueue('old', 'config');
    await redis.hset(keys.status('app.old'), RELEASE);
    await moveProjection(redis, 'old', 'new', rename.id);
    const marker = (await readRenamed(redis, 'old'))!;
    // The highest position reserved in OLD's lane at the move.
    expect(marker).toEqual({ name: 'new', jobId: rename.id, seq: configDuring.seq });

    // The rename's end empties OLD's release fields and leaves the marker as the move wrote it.
    const at = Date.now();
    await lanes.finish({
      jobId: rename.id,
      lane: 'app.old',
      done: '{"state":"completed"}',
      status: { ...statusOnSuccess(rename, at, {}), ...statusOfRelease({ destroyed: true }) },
    });
    expect(await readRenamed(redis, 'old')).toEqual(marker);
    const status = await readLaneStatus(redis, 'app.old');
    expect(status).toMatchObject({ renamedTo: 'new' });
    expect(status?.revision).toBeUndefined();

    const after = await enqueue('old', 'deploy');
    const configAfter = await enqueue('old', 'config');
    expect(await verdict('old', rename)).toBe('run');
    expect(await verdict('old', during)).toBe('refuse');
    expect(await verdict('old', configDuring)).toBe('refuse');
    expect(await verdict('old', { ...after, seq: marker.seq! })).toBe('refuse');
    expect(await verdict('old', after)).toBe('reclaim');
    expect(await verdict('old', configAfter)).toBe('refuse');
    expect((await renamedDecision(redis, 'old', after))?.pinned).toBe(false);
  });

  it('a rename that stalled after the move (failed without its end) still refuses a deploy enqueued while it ran', async () => {
    const rename = await enqueue('stuck', 'rename', 'moved');
    const during = await enqueue('stuck', 'deploy');
    await redis.hset(keys.status('app.stuck'), RELEASE);
    await moveProjection(redis, 'stuck', 'moved', rename.id);
    // BullMQ fails a job that stalled too often without running our finish script; the next
    // acquire of the lane drops it from the head. Nothing of the rename's end is written.
    await lanes.unreserve('app.stuck', rename.id);
    expect(await lanes.pending('app.stuck')).toEqual([during.id]);
    expect(await readRenamed(redis, 'stuck')).toEqual({ name: 'moved', jobId: rename.id, seq: during.seq });

    expect(await verdict('stuck', during)).toBe('refuse');
    const later = await enqueue('stuck', 'deploy');
    expect(await verdict('stuck', later)).toBe('reclaim');
    expect(await verdict('stuck', await enqueue('stuck', 'scale'))).toBe('refuse');
  });

  it.each([
    ['with finishedAt (an older longshore, after the rename ended)', { finishedAt: 1 }],
    ['without a time (an older longshore, or a move whose end never ran)', {}],
  ])('a marker without a position, %s: the first job to meet it pins the lane counter', async (_, extra) => {
    const app = `legacy${Object.keys(extra).length}`;
    const lane = `app.${app}`;
    const rename = await enqueue(app, 'rename', `${app}-new`);
    const queued = await enqueue(app, 'deploy');
    const behind = await enqueue(app, 'deploy');
    await redis.hset(
      keys.status(lane),
      RENAMED_FIELD,
      JSON.stringify({ name: `${app}-new`, jobId: rename.id, ...extra }),
    );

    // The rename itself runs and pins nothing (its retry would still head the lane).
    expect(await renamedDecision(redis, app, rename)).toMatchObject({ verdict: 'run', pinned: false });
    expect((await readRenamed(redis, app))?.seq).toBeUndefined();

    // A deploy enqueued long after the rename ended, before any job met the marker: refused once,
    // and the marker holds the lane's counter from then on.
    expect(await renamedDecision(redis, app, queued)).toMatchObject({ verdict: 'refuse', pinned: true });
    expect(await readRenamed(redis, app)).toEqual({ name: `${app}-new`, jobId: rename.id, seq: behind.seq });
    expect(await renamedDecision(redis, app, behind)).toMatchObject({ verdict: 'refuse', pinned: false });
    const next = await enqueue(app, 'deploy');
    expect(await verdict(app, next)).toBe('reclaim');
    expect(await verdict(app, await enqueue(app, 'config'))).toBe('refuse');
  });
});
