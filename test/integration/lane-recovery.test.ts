/**
 * Lanes heal themselves: a slot reserved by a producer that died before adding its job blocks its
 * app only for the reservation grace; a job added after its slot was given up joins the end of the
 * lane; a queued job removed behind longshore's back does not block its app forever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENVELOPE_VERSION } from '../../src/jobs/envelope.ts';
import { LaneStore } from '../../src/jobs/ordering/lane-store.ts';
import { startTestFleet, type TestFleet } from '../helpers/fleet.ts';
import { until } from '../helpers/wait.ts';

describe('lane recovery', () => {
  let fleet: TestFleet;
  let lanes: LaneStore;

  beforeAll(async () => {
    fleet = await startTestFleet({ LONGSHORE_RESERVATION_GRACE_MS: '1500' });
    lanes = new LaneStore(fleet.client);
    await fleet.startWorker();
  });

  afterAll(() => fleet.stop());

  it('gives up a reservation whose job never came, then runs a late arrival at the end of the lane', async () => {
    // A producer reserved a slot and died before adding its job.
    const orphan = await lanes.reserve('app.orphaned');
    const behind = await fleet.jobs.enqueue('scale', { app: 'orphaned', processes: { web: 2 } }, 'test');
    const started = Date.now();
    await until(
      async () => (await fleet.jobState(behind.id)) === 'completed' || undefined,
      'the job behind the orphaned slot',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

    // The job of the given-up slot arrives after all (a very slow producer): it still runs, last.
    const later = await fleet.jobs.enqueue('scale', { app: 'orphaned', processes: { web: 3 } }, 'test');
    await fleet.jobs.queue.add(
      'scale',
      {
        v: ENVELOPE_VERSION,
        payload: { app: 'orphaned', processes: { web: 1 } },
        lane: 'app.orphaned',
        seq: orphan.seq,
        enqueuedAt: Date.now(),
        enqueuedBy: 'slow',
      },
      { jobId: orphan.jobId },
    );
    await until(
      async () => (await fleet.jobState(orphan.jobId)) === 'completed' || undefined,
      'the late job to run',
    );
    const starts = (await fleet.events())
      .filter((e) => e.app === 'orphaned' && e.phase === 'start')
      .map((e) => e.index);
    expect(starts).toEqual([2, 3, 1]);
    expect(await fleet.jobState(later.id)).toBe('completed');
  });

  it('does not block an app behind a queued job that was removed by hand', async () => {
    const holder = await fleet.jobs.enqueue(
      'properties',
      { app: 'handy', set: { rollbackOnFailure: true } },
      'test',
    );
    await fleet.waitForEvent((e) => e.jobId === holder.id && e.phase === 'start', 'the holder to start');
    const removed = await fleet.jobs.enqueue('scale', { app: 'handy', processes: { web: 1 } }, 'test');
    const behind = await fleet.jobs.enqueue('scale', { app: 'handy', processes: { web: 2 } }, 'test');
    // Parked behind the holder, then removed the way a dashboard would, without telling the lane.
    await until(
      async () => (await fleet.jobState(removed.id)) === 'delayed' || undefined,
      'the job to be parked',
    );
    await (await fleet.jobs.queue.getJob(removed.id))!.remove();
    await fleet.client.publish('{longshore}:cancel', holder.id);
    await until(
      async () => (await fleet.jobState(behind.id)) === 'completed' || undefined,
      'the job behind the removed one',
      {
        timeoutMs: 30_000,
      },
    );
    expect((await fleet.events()).some((e) => e.jobId === removed.id)).toBe(false);
    expect(await lanes.pending('app.handy')).toEqual([]);
  });
});
