/**
 * Jobs that hold a second lane through a barrier (docs/ordering.md, "Barriers"), run by three real
 * worker processes: a rename starts only after the jobs of both names enqueued before it, and the
 * jobs of either name enqueued after it wait for it; renames crossing each other's lanes, enqueued
 * at the same moment from two producers, all finish (both positions are reserved in one script, so
 * no two of them can wait for each other).
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobClient } from '../../src/jobs/client.ts';
import { type RecordedEvent, startTestFleet, type TestFleet } from '../helpers/fleet.ts';
import { until } from '../helpers/wait.ts';

let fleet: TestFleet;
let second: Redis;
let otherProducer: JobClient;

beforeAll(async () => {
  fleet = await startTestFleet({ TEST_BARRIER_HANDLERS: '1', LONGSHORE_LOG_LEVEL: 'warn' });
  for (let i = 0; i < 3; i++) await fleet.startWorker({}, 4);
  second = fleet.redis.connect();
  otherProducer = new JobClient(second, { attempts: 3, backoffMs: 50 });
  otherProducer.onQueueError(() => undefined);
});

afterAll(async () => {
  await otherProducer?.close();
  second?.disconnect();
  await fleet?.stop();
});

const scale = (app: string, web: number, sleepms = 0) => ({ app, processes: { web, sleepms } });

async function endedAll(ids: string[]): Promise<void> {
  await until(
    async () => {
      const states = await Promise.all(ids.map((id) => fleet.jobState(id)));
      return states.every((s) => s === 'completed' || s === 'failed') || undefined;
    },
    `${ids.length} jobs to end`,
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}

function at(events: RecordedEvent[], jobId: string, phase: 'start' | 'end'): number {
  const found = events.find((e) => e.jobId === jobId && e.phase === phase);
  expect(found, `${phase} of ${jobId}`).toBeDefined();
  return found!.n;
}

describe('barriers', () => {
  it("a rename runs after the earlier jobs of both names' lanes and before the later ones", async () => {
    const jobs = fleet.jobs;
    const oldBefore = await jobs.enqueue('scale', scale('old1', 1, 300), 'test');
    const newBefore = await jobs.enqueue('scale', scale('new1', 1, 600), 'test');
    const rename = await jobs.enqueue('rename', { app: 'old1', newName: 'new1' }, 'test');
    const newAfter = await jobs.enqueue('scale', scale('new1', 2), 'test');
    const oldAfter = await jobs.enqueue('scale', scale('old1', 2), 'test');
    const ids = [oldBefore, newBefore, rename, newAfter, oldAfter].map((j) => j.id);
    await endedAll(ids);
    expect(await Promise.all(ids.map((id) => fleet.jobState(id)))).toEqual(ids.map(() => 'completed'));
    const events = await fleet.events();
    const start = at(events, rename.id, 'start');
    const end = at(events, rename.id, 'end');
    expect(at(events, oldBefore.id, 'end')).toBeLessThan(start);
    expect(at(events, newBefore.id, 'end')).toBeLessThan(start);
    expect(at(events, newAfter.id, 'start')).toBeGreaterThan(end);
    expect(at(events, oldAfter.id, 'start')).toBeGreaterThan(end);
  });

  it('renames crossing each other, enqueued at the same moment by two producers, all finish', async () => {
    const pairs = Array.from({ length: 12 }, (_, i) => [`cross${i}a`, `cross${i}b`] as const);
    const enqueued = await Promise.all(
      pairs.flatMap(([a, b]) => [
        fleet.jobs.enqueue('rename', { app: a, newName: b }, 'test'),
        otherProducer.enqueue('rename', { app: b, newName: a }, 'test'),
      ]),
    );
    const ids = enqueued.map((j) => j.id);
    await endedAll(ids);
    expect(await Promise.all(ids.map((id) => fleet.jobState(id)))).toEqual(ids.map(() => 'completed'));
    // The two renames of a pair hold the same two lanes: they never overlap.
    const events = await fleet.events();
    for (let i = 0; i < ids.length; i += 2) {
      const [x, y] = [ids[i]!, ids[i + 1]!];
      const overlap =
        at(events, x, 'start') < at(events, y, 'end') && at(events, y, 'start') < at(events, x, 'end');
      expect(overlap, `${x} and ${y} overlap`).toBe(false);
    }
  });
});
