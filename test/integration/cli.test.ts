/**
 * The CLI against a real fleet: --wait streaming and exit codes, visible retries, listings,
 * retry refusing silent rollbacks, supersession of queued deploys, and the projection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestFleet, type TestFleet } from '../helpers/fleet.ts';
import { runCli } from '../helpers/processes.ts';
import { until } from '../helpers/wait.ts';

describe('longshore CLI', () => {
  let fleet: TestFleet;

  beforeAll(async () => {
    fleet = await startTestFleet();
    await fleet.startWorker({}, 3);
  });

  afterAll(() => fleet.stop());

  it('streams the steps and log lines with --wait, the outcome last, and exits 0 on success', async () => {
    const result = await runCli(['apps:destroy', 'streamy', '--force', '--wait'], fleet.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      'enqueued destroy job app.streamy.1 in lane app.streamy at position 1',
      'waiting for it to finish (Ctrl-C stops waiting; the job stays queued)',
      '-----> Destroying streamy',
      '       uninstalling releases',
      '=====> app.streamy.1 completed: destroyed',
      '',
    ]);
  });

  it('exits 1 when the job fails, with the reason', async () => {
    const result = await runCli(
      ['jobs:enqueue', 'scale', '--payload', '{"app":"broken","processes":{"web":1,"boom":1}}', '--wait'],
      fleet.env,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/app\.broken\.1 failed: boom requested for broken #1/);
  });

  it('retries transient failures with backoff, visibly, and succeeds', async () => {
    const result = await runCli(['ports:add', 'flaky', 'http:80:5000', '--wait'], fleet.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/attempt 1 failed \(transient, retry 1 of 4\): flaky dependency/);
    expect(result.stdout).toMatch(/attempt 2 failed \(transient, retry 2 of 4\)/);
    expect(result.stdout).toMatch(/completed: succeeded on attempt 3/);
    const shown = await runCli(['jobs:show', 'app.flaky.1', '--json'], fleet.env);
    const details = JSON.parse(shown.stdout) as {
      attempts: { outcome: string }[];
      attemptsMade: number;
      state: string;
    };
    expect(details.state).toBe('completed');
    expect(details.attempts.map((a) => a.outcome)).toEqual(['retrying', 'retrying', 'completed']);
  });

  it('lists jobs and apps from Redis, with filters and JSON', async () => {
    const failed = await runCli(['jobs:list', '--state', 'failed', '--app', 'broken', '--json'], fleet.env);
    expect(failed.code).toBe(0);
    const jobs = JSON.parse(failed.stdout) as { id: string; state: string; app: string }[];
    expect(jobs.map((j) => [j.id, j.state, j.app])).toEqual([['app.broken.1', 'failed', 'broken']]);

    const human = await runCli(['jobs:list'], fleet.env);
    expect(human.stdout).toMatch(/^ID\s+STATE\s+ATTEMPTS\s+ENQUEUED\s+DESCRIPTION/);
    expect(human.stdout).toMatch(/app\.flaky\.1\s+completed/);

    const apps = await runCli(['apps:list', '--json'], fleet.env);
    const list = JSON.parse(apps.stdout) as { name: string; lastOutcome: string }[];
    expect(list.find((a) => a.name === 'broken')).toMatchObject({ lastOutcome: 'failed' });
    expect(list.find((a) => a.name === 'flaky')).toMatchObject({ lastOutcome: 'completed' });

    const badState = await runCli(['jobs:list', '--state', 'sleeping'], fleet.env);
    expect(badState.code).toBe(2);
    expect(badState.stderr).toMatch(/--state: unknown state sleeping/);
  });

  it('refuses to retry a failed job over a newer success without --force', async () => {
    const bad = await runCli(
      ['jobs:enqueue', 'scale', '--payload', '{"app":"rolly","processes":{"web":1,"boom":1}}', '--wait'],
      fleet.env,
    );
    expect(bad.code).toBe(1);
    const good = await runCli(['ps:scale', 'rolly', 'web=2', '--wait'], fleet.env);
    expect(good.code).toBe(0);

    const refused = await runCli(['jobs:retry', 'app.rolly.1'], fleet.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /a newer scale of rolly \(app\.rolly\.2\) already succeeded; retrying app\.rolly\.1 would re-apply this older scale\. Pass --force/,
    );
    expect(await fleet.jobState('app.rolly.1')).toBe('failed');

    const forced = await runCli(['jobs:retry', 'app.rolly.1', '--force'], fleet.env);
    expect(forced.code, forced.stderr).toBe(0);
    // It ran again (and failed again, as its payload asks), after rejoining the end of its lane.
    await until(
      async () =>
        (await fleet.events()).filter((e) => e.jobId === 'app.rolly.1' && e.phase === 'start').length === 2 ||
        undefined,
      'the retried job to run again',
    );
  });

  it('retries every failed job of an app with --all when nothing newer succeeded', async () => {
    const first = await runCli(
      ['jobs:enqueue', 'scale', '--payload', '{"app":"again","processes":{"web":1,"boom":1}}', '--wait'],
      fleet.env,
    );
    expect(first.code).toBe(1);
    const retry = await runCli(['jobs:retry', '--all', '--app', 'again'], fleet.env);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stdout).toMatch(/app\.again\.1 retried/);
    await until(
      async () =>
        (await fleet.events()).filter((e) => e.jobId === 'app.again.1' && e.phase === 'start').length === 2 ||
        undefined,
      'the retried job to run again',
    );
  });

  it("refuses to retry a failed rename (it gave up the new name's lane): enqueue it again instead", async () => {
    // This worker has no rename handler, so the rename fails at once, as a failed saga would.
    const failed = await runCli(['apps:rename', 'oldname', 'newname', '--wait'], fleet.env);
    expect(failed.code).toBe(1);
    const id = 'app.oldname.1';
    expect(await fleet.jobState(id)).toBe('failed');
    const retry = await runCli(['jobs:retry', id], fleet.env);
    expect(retry.code).toBe(2);
    expect(retry.stderr).toMatch(/is a rename, which cannot be retried: enqueue it again/);
    expect(await fleet.jobState(id)).toBe('failed');
  });

  it("refuses to retry a failed mount (it gave up its entry's lane), not a failed unmount", async () => {
    // No mounts handler here either: both fail at once.
    const mounted = await runCli(['storage:mount', 'mounty', 'data:/data', '--wait'], fleet.env);
    expect(mounted.code).toBe(1);
    const retry = await runCli(['jobs:retry', 'app.mounty.1'], fleet.env);
    expect(retry.code).toBe(2);
    expect(retry.stderr).toMatch(
      /is a mounts, which cannot be retried: enqueue it again \(storage:mount APP ENTRY:\/path\); it held lane storage\.data too/,
    );
    expect(await fleet.jobState('app.mounty.1')).toBe('failed');

    const unmounted = await runCli(['storage:unmount', 'mounty', 'data:/data', '--wait'], fleet.env);
    expect(unmounted.code).toBe(1);
    const again = await runCli(['jobs:retry', 'app.mounty.2'], fleet.env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/app\.mounty\.2 retried/);
  });

  it('supersedes a queued deploy with a newer one, and --wait follows it', async () => {
    // Hold the lane with a job that runs until cancelled, then queue two deploys behind it.
    const holder = await fleet.jobs.enqueue(
      'properties',
      { app: 'pushy', set: { rollbackOnFailure: true } },
      'test',
    );
    await fleet.waitForEvent((e) => e.jobId === holder.id && e.phase === 'start', 'the lane holder to start');
    const olderCli = runCli(
      ['deploy', 'pushy', '--image', 'registry.example.com/pushy:1', '--wait'],
      fleet.env,
    );
    const older = 'app.pushy.2';
    await until(
      async () => (await fleet.jobState(older)) !== 'missing' || undefined,
      'the older deploy to be enqueued',
    );
    const newer = await fleet.jobs.enqueue(
      'deploy',
      { app: 'pushy', image: 'registry.example.com/pushy:2' },
      'test',
    );

    const shown = await runCli(['jobs:show', older, '--json'], fleet.env);
    const details = JSON.parse(shown.stdout) as { lanePosition: { ahead: number; head: string } };
    expect(details.lanePosition).toEqual({ ahead: 1, head: holder.id });

    await runCli(['jobs:cancel', holder.id], fleet.env);
    const waited = await olderCli;
    expect(waited.stdout).toMatch(
      new RegExp(`${older.replaceAll('.', '\\.')} was superseded by ${newer.id.replaceAll('.', '\\.')}`),
    );
    // This worker build has no deploy handler: the newer deploy says so instead of pretending.
    expect(waited.stderr).toMatch(/no handler for "deploy" jobs in this worker/);
    expect(waited.code).toBe(1);

    const olderJob = (await fleet.jobs.queue.getJob(older))!;
    expect(await olderJob.getState()).toBe('completed');
    expect(olderJob.returnvalue).toEqual({ outcome: 'superseded', supersededBy: newer.id });
    const newerJob = (await fleet.jobs.queue.getJob(newer.id))!;
    expect(newerJob.attemptsMade).toBe(1);

    const status = await runCli(['apps:status', 'pushy', '--json'], fleet.env);
    expect(JSON.parse(status.stdout)).toMatchObject({
      lastJobId: newer.id,
      lastOutcome: 'failed',
      pending: 0,
    });
  });

  it('answers health, readiness and metrics on the worker’s port', async () => {
    const line = fleet.workers[0]!.lines.find((l) => l.includes('recording-worker ready'))!;
    const port = /health=(\d+)/.exec(line)![1];
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/longshore_jobs_total\{type="scale",outcome="failed"\} \d+/);
    expect(metrics).toMatch(/longshore_jobs_total\{type="deploy",outcome="superseded"\} 1/);
    expect(metrics).toMatch(/longshore_queue_depth\{state="completed"\} \d+/);
    expect(metrics).toMatch(/longshore_job_duration_seconds_bucket/);
    expect(metrics).toMatch(/longshore_ordering_waits_total/);
  });
});
