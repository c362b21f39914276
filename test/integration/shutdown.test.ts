/**
 * Graceful shutdown: SIGTERM lets the running job finish and exits 0; a job still running at the
 * deadline is handed back (no attempt consumed) and another worker runs it; an operator can
 * cancel a running job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAttempts } from '../../src/jobs/attempts.ts';
import { startTestFleet, type TestFleet } from '../helpers/fleet.ts';
import { runCli } from '../helpers/processes.ts';
import { until } from '../helpers/wait.ts';

describe('worker shutdown', () => {
  let fleet: TestFleet;

  beforeAll(async () => {
    fleet = await startTestFleet();
  });

  afterAll(() => fleet.stop());

  it('finishes the running job on SIGTERM, takes no new one, and exits 0', async () => {
    const worker = await fleet.startWorker({}, 1);
    const running = await fleet.jobs.enqueue('destroy', { app: 'calm' }, 'test');
    await fleet.waitForEvent((e) => e.jobId === running.id && e.phase === 'start', 'the job to start');
    const queued = await fleet.jobs.enqueue('scale', { app: 'other', processes: { web: 1 } }, 'test');
    worker.kill('SIGTERM');
    const exit = await worker.exited;
    expect(exit.code).toBe(0);
    expect(await fleet.jobState(running.id)).toBe('completed');
    expect((await fleet.events()).some((e) => e.jobId === running.id && e.phase === 'end')).toBe(true);
    // The queued job was left for the rest of the fleet.
    expect(await fleet.jobState(queued.id)).toBe('waiting');
    expect(worker.output()).toMatch(/worker stopped/);
  });

  it('hands a job still running at the deadline back, and another worker takes it over', async () => {
    const impatient = await fleet.startWorker({ LONGSHORE_SHUTDOWN_DEADLINE_MS: '300' }, 1);
    // The previous test left a scale job for "other" waiting: let it go first.
    await until(
      async () => (await fleet.jobs.queue.getJobCounts('wait')).wait === 0 || undefined,
      'the queue to drain',
    );
    const job = await fleet.jobs.enqueue(
      'properties',
      { app: 'stubborn', set: { rollbackOnFailure: true } },
      'test',
    );
    await fleet.waitForEvent((e) => e.jobId === job.id && e.phase === 'start', 'the long job to start');
    impatient.kill('SIGTERM');
    expect((await impatient.exited).code).toBe(0);
    expect(await fleet.jobState(job.id)).toBe('waiting');

    await fleet.startWorker({}, 1);
    await fleet.waitForEvent(
      (e) => e.jobId === job.id && e.phase === 'start' && e.attempt === 2,
      'the job to restart elsewhere',
    );
    const attempts = await readAttempts(fleet.client, job.id);
    expect(attempts[0]).toMatchObject({ outcome: 'handed-back' });
    const bullJob = (await fleet.jobs.queue.getJob(job.id))!;
    expect(bullJob.attemptsMade).toBe(0);

    // Now cancel it while it runs: the handler is aborted and the job fails as cancelled.
    const cancel = await runCli(['jobs:cancel', job.id], fleet.env);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toMatch(/cancel requested/);
    await until(
      async () => (await fleet.jobState(job.id)) === 'failed' || undefined,
      'the cancelled job to fail',
    );
    expect((await fleet.jobs.queue.getJob(job.id))!.failedReason).toMatch(/cancelled by an operator/);
  });

  it('removes a queued job on cancel and frees its place in the lane', async () => {
    const blocker = await fleet.jobs.enqueue(
      'properties',
      { app: 'queue', set: { rollbackOnFailure: true } },
      'test',
    );
    await fleet.waitForEvent((e) => e.jobId === blocker.id && e.phase === 'start', 'the blocker to start');
    const queued = await fleet.jobs.enqueue('scale', { app: 'queue', processes: { web: 1 } }, 'test');
    const after = await fleet.jobs.enqueue('scale', { app: 'queue', processes: { web: 2 } }, 'test');
    const removed = await runCli(['jobs:cancel', queued.id], fleet.env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/removed/);
    expect(await fleet.jobState(queued.id)).toBe('missing');
    await runCli(['jobs:cancel', blocker.id], fleet.env);
    await until(
      async () => (await fleet.jobState(after.id)) === 'completed' || undefined,
      'the job behind the removed one',
    );
    expect((await fleet.events()).some((e) => e.jobId === queued.id)).toBe(false);
  });
});
