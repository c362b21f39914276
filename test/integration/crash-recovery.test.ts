/**
 * A worker killed with SIGKILL in the middle of a job: after stall recovery the job completes on
 * another worker, its effect is applied once, and the app's next job waits for it. A job that
 * stalls more often than LONGSHORE_MAX_STALLED_COUNT allows fails for good with a reason a person
 * can act on, recorded in its lane, and the app's next job goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAttempts } from '../../src/jobs/attempts.ts';
import { JOB_FIELDS, keys } from '../../src/jobs/keys.ts';
import { laneId } from '../../src/jobs/lane.ts';
import { readLaneStatus } from '../../src/jobs/status.ts';
import { startTestFleet, type TestFleet } from '../helpers/fleet.ts';
import { until } from '../helpers/wait.ts';

describe('stall recovery after kill -9', () => {
  let fleet: TestFleet;

  beforeAll(async () => {
    // Each run of the handler holds 4 s after its effect, so the kill lands mid-job.
    fleet = await startTestFleet({ TEST_HOLD_MS: '4000' });
    await Promise.all([fleet.startWorker(), fleet.startWorker()]);
  });

  afterAll(() => fleet.stop());

  it('completes the job elsewhere with its effect applied once', async () => {
    const first = await fleet.jobs.enqueue(
      'domains',
      { app: 'crashy', action: 'add', domains: ['crashy.example.com'] },
      'test',
    );
    const next = await fleet.jobs.enqueue('scale', { app: 'crashy', processes: { web: 7 } }, 'test');

    const effect = await fleet.waitForEvent(
      (e) => e.jobId === first.id && e.phase === 'effect',
      'the effect of the first attempt',
    );
    const victim = fleet.workers.find((w) => w.pid === effect.pid)!;
    victim.kill('SIGKILL');
    await victim.exited;

    await until(
      async () => (await fleet.jobState(first.id)) === 'completed' || undefined,
      'the job to complete after recovery',
      {
        timeoutMs: 40_000,
      },
    );
    await until(
      async () => (await fleet.jobState(next.id)) === 'completed' || undefined,
      'the next job of the app',
      {
        timeoutMs: 20_000,
      },
    );

    expect(await fleet.client.get(`test:effects:${first.id}`)).toBe('1');
    const events = await fleet.events();
    const runs = events.filter((e) => e.jobId === first.id && e.phase === 'effect');
    expect(runs).toHaveLength(2);
    expect(runs[0]!.pid).toBe(victim.pid);
    expect(runs[1]!.pid).not.toBe(victim.pid);
    expect(runs[1]!.previous).toBe(1);
    const done = events.find((e) => e.jobId === first.id && e.phase === 'done')!;
    expect(done.pid).not.toBe(victim.pid);

    // The handler saw the interrupted attempt: no end, no outcome.
    const attempts = await readAttempts(fleet.client, first.id);
    expect(attempts).toHaveLength(2);
    expect(attempts[0]).toMatchObject({ attemptNumber: 1, pid: victim.pid });
    expect(attempts[0]!.endedAt).toBeUndefined();
    expect(attempts[1]).toMatchObject({ attemptNumber: 2, outcome: 'completed' });

    // The app's next job ran only after the recovered job finished.
    const nextStart = events.find((e) => e.jobId === next.id && e.phase === 'start')!;
    expect(nextStart.n).toBeGreaterThan(done.n);
  });
});

describe('a job that stalls more often than allowed', () => {
  let fleet: TestFleet;

  beforeAll(async () => {
    // No recovery allowed: the first stall fails the job when a worker next picks it.
    fleet = await startTestFleet({ TEST_HOLD_MS: '4000', LONGSHORE_MAX_STALLED_COUNT: '0' });
    await Promise.all([fleet.startWorker(), fleet.startWorker()]);
  });

  afterAll(() => fleet.stop());

  it('fails for good, saying why and what to do, and frees the lane', async () => {
    const first = await fleet.jobs.enqueue(
      'domains',
      { app: 'stuck', action: 'add', domains: ['stuck.example.com'] },
      'test',
    );
    const next = await fleet.jobs.enqueue('scale', { app: 'stuck', processes: { web: 2 } }, 'test');
    const effect = await fleet.waitForEvent(
      (e) => e.jobId === first.id && e.phase === 'effect',
      'the effect of the first attempt',
    );
    const victim = fleet.workers.find((w) => w.pid === effect.pid)!;
    victim.kill('SIGKILL');
    await victim.exited;

    await until(
      async () => (await fleet.jobState(first.id)) === 'failed' || undefined,
      'the stalled job to fail',
      { timeoutMs: 40_000 },
    );
    await until(
      async () => (await fleet.jobState(next.id)) === 'completed' || undefined,
      'the next job of the app',
      { timeoutMs: 20_000 },
    );
    const status = await readLaneStatus(fleet.client, laneId({ kind: 'app', name: 'stuck' }));
    // The failure was recorded before the next job ran, which then became the lane's last job.
    expect(status?.lastJobId).toBe(next.id);
    const done = await fleet.client.hget(keys.job(first.id), JOB_FIELDS.done);
    expect(done).toMatch(/its worker stopped while running it \(killed, crashed or lost its lock\) 1 times/);
    expect(done).toMatch(/LONGSHORE_MAX_STALLED_COUNT=0/);
    expect(done).toContain(`jobs:retry ${first.id}`);
    // It never ran again after the kill.
    const runs = (await fleet.events()).filter((e) => e.jobId === first.id && e.phase === 'effect');
    expect(runs).toHaveLength(1);
  });
});
