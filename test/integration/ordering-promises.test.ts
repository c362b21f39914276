/**
 * Issue 11, cases 1–3, through real processes (redis-server, recording worker processes, the CLI):
 *  1. `jobs:retry` of a failed change refuses while newer work of the app is queued or running
 *     (it would run after it and undo it); `--force` retries anyway, at the end of the lane.
 *  2. supersession merges only deploys with no other mutation between them, so the effects are
 *     those of sequential order minus the skipped deploy.
 *  3. a reconcile that succeeded after the failed job does not count as newer work.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordedEvent, startTestFleet, type TestFleet } from '../helpers/fleet.ts';
import { runCli } from '../helpers/processes.ts';
import { until } from '../helpers/wait.ts';

/** The digest the recording worker's config handler records for these values. */
function configDigest(values: Record<string, string>): string {
  const digest = createHash('sha256');
  for (const [key, value] of Object.entries(values).sort()) digest.update(`${key}=${value}\n`);
  return digest.digest('hex');
}

/** An id as a regular expression fragment. */
const re = (id: string) => id.replaceAll('.', '\\.');

describe('ordering promises (issue 11, cases 1–3)', () => {
  let fleet: TestFleet;

  beforeAll(async () => {
    fleet = await startTestFleet();
    await fleet.startWorker({ TEST_DEPLOY_HANDLER: '1' }, 3);
  });

  afterAll(() => fleet.stop());

  async function appEvents(app: string): Promise<RecordedEvent[]> {
    return (await fleet.events()).filter((e) => e.app === app).sort((a, b) => a.n - b.n);
  }

  async function finished(id: string): Promise<string> {
    return until(async () => {
      const state = await fleet.jobState(id);
      return state === 'completed' || state === 'failed' ? state : undefined;
    }, `job ${id} to finish`);
  }

  it('case 1: refuses a retry that would overtake newer queued work, and --force sends it to the end of the lane', async () => {
    const app = 'retro';
    await fleet.client.set(`test:fail-next-config:${app}`, '1');
    const old = await runCli(['config:set', app, 'K=old', '--wait'], fleet.env);
    expect(old.code).toBe(1);
    const failedId = `app.${app}.1`;
    expect(await fleet.jobState(failedId)).toBe('failed');

    // A slow job holds the lane; the newer change queues behind it.
    const holder = await fleet.jobs.enqueue('properties', { app, set: { rollbackOnFailure: true } }, 'test');
    await fleet.waitForEvent((e) => e.jobId === holder.id && e.phase === 'start', 'the lane holder to start');
    const newer = await runCli(['config:set', app, 'K=new'], fleet.env);
    expect(newer.code, newer.stderr).toBe(0);
    const newerId = `app.${app}.3`;
    expect(newer.stdout).toMatch(new RegExp(re(newerId)));

    // --json: the outcome on stdout, the refusal on stderr as without it.
    const refused = await runCli(['jobs:retry', failedId, '--json'], fleet.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`${re(holder.id)} \\(properties, active\\)`));
    // The newer job waits behind the holder: parked (delayed), not yet picked (waiting), or for a
    // moment active in the worker that picked it and is about to park it.
    expect(refused.stderr).toMatch(new RegExp(`${re(newerId)} \\(config, (delayed|waiting|active)\\)`));
    expect(refused.stderr).toMatch(/Pass --force/);
    expect(await fleet.jobState(failedId)).toBe('failed');

    const [outcome] = JSON.parse(refused.stdout) as {
      retried: boolean;
      newer: { id: string; type: string }[];
    }[];
    expect(outcome!.retried).toBe(false);
    expect(outcome!.newer.map((n) => [n.id, n.type])).toEqual([
      [holder.id, 'properties'],
      [newerId, 'config'],
    ]);

    // Forced: it joins the end of the lane, so it runs after the newer change and its value wins.
    const forced = await runCli(['jobs:retry', failedId, '--force'], fleet.env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(new RegExp(`${re(failedId)} retried \\(forced: `));
    await runCli(['jobs:cancel', holder.id], fleet.env);
    expect(await finished(failedId)).toBe('completed');
    const applied = (await appEvents(app)).filter((e) => e.phase === 'config').map((e) => e.digest);
    expect(applied).toEqual([configDigest({ K: 'new' }), configDigest({ K: 'old' })]);
  });

  it('case 1: a forced retry of an old change that succeeds does not lower the guard for the others', async () => {
    const app = 'guard';
    const failOnce = async (key: string) => {
      await fleet.client.set(`test:fail-next-config:${app}`, '1');
      const job = await fleet.jobs.enqueue('config', { app, unset: [key] }, 'test');
      expect(await finished(job.id)).toBe('failed');
      return job.id;
    };
    const a = await failOnce('A');
    const b = await failOnce('B');
    const c = await fleet.jobs.enqueue('config', { app, unset: ['C'] }, 'test');
    expect(await finished(c.id)).toBe('completed');

    const forced = await runCli(['jobs:retry', a, '--force'], fleet.env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await finished(a)).toBe('completed');
    // C is still the newest change that succeeded, and B is older than it.
    const refused = await runCli(['jobs:retry', b], fleet.env);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(`a newer config of ${app} \\(${re(c.id)}\\) already succeeded`),
    );
  });

  it('case 2: supersedes only a deploy followed directly by a newer deploy; effects follow sequential order', async () => {
    const app = 'lanes';
    const image = (tag: string) => `registry.example.com/${app}:${tag}`;
    await fleet.client.set(`test:hold:${app}`, '1');
    const running = await fleet.jobs.enqueue('deploy', { app, image: image('1.26') }, 'test');
    await fleet.waitForEvent((e) => e.jobId === running.id && e.phase === 'deploy', 'deploy 1.26 to start');

    const waitOn127 = runCli(['deploy', app, '--image', image('1.27'), '--wait'], fleet.env);
    const d127 = `app.${app}.2`;
    await until(
      async () => (await fleet.jobState(d127)) !== 'missing' || undefined,
      'deploy 1.27 to be enqueued',
    );
    const d128 = await fleet.jobs.enqueue('deploy', { app, image: image('1.28') }, 'test');
    const config = await runCli(['config:set', app, 'Z=1'], fleet.env);
    expect(config.code, config.stderr).toBe(0);
    const d129 = await fleet.jobs.enqueue('deploy', { app, image: image('1.29') }, 'test');
    await fleet.client.del(`test:hold:${app}`);

    expect(await finished(d129.id)).toBe('completed');
    const effects = (await appEvents(app))
      .filter((e) => e.phase === 'deploy' || e.phase === 'config')
      .map((e) => (e.phase === 'deploy' ? `deploy ${String(e.image).split(':').at(-1)}` : 'config Z'));
    // Sequential order is 1.26, 1.27, 1.28, config, 1.29; only 1.27 (directly followed by 1.28) is skipped.
    expect(effects).toEqual(['deploy 1.26', 'deploy 1.28', 'config Z', 'deploy 1.29']);

    const skipped = (await fleet.jobs.queue.getJob(d127))!;
    expect(skipped.returnvalue).toEqual({ outcome: 'superseded', supersededBy: d128.id });
    // --wait on 1.27 followed the deploy that carried its change forward, 1.28, and ended with it.
    const waited = await waitOn127;
    expect(waited.stdout).toMatch(new RegExp(`${re(d127)} was superseded by ${re(d128.id)}`));
    expect(waited.stdout).toMatch(new RegExp(`${re(d128.id)} completed`));
    expect(waited.code, waited.stderr).toBe(0);
  });

  it('case 3: a reconcile that succeeded after a failed change does not make its retry refuse', async () => {
    const app = 'healed';
    await fleet.client.set(`test:fail-next-config:${app}`, '1');
    const bad = await runCli(['config:set', app, 'K=v', '--wait'], fleet.env);
    expect(bad.code).toBe(1);
    const reconcile = await runCli(
      ['jobs:enqueue', 'reconcile', '--payload', JSON.stringify({ app }), '--wait'],
      fleet.env,
    );
    expect(reconcile.code, reconcile.stderr).toBe(0);

    const retry = await runCli(['jobs:retry', `app.${app}.1`], fleet.env);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stdout).toMatch(new RegExp(`${re(`app.${app}.1`)} retried$`, 'm'));
    expect(await finished(`app.${app}.1`)).toBe('completed');

    // A newer operator change that succeeded still refuses the retry, reconcile or not after it.
    await fleet.client.set(`test:fail-next-config:${app}`, '1');
    const bad2 = await fleet.jobs.enqueue('config', { app, unset: ['K'] }, 'test');
    expect(await finished(bad2.id)).toBe('failed');
    const good = await fleet.jobs.enqueue('config', { app, unset: ['K'] }, 'test');
    expect(await finished(good.id)).toBe('completed');
    const again = await fleet.jobs.enqueue('reconcile', { app }, 'test');
    expect(await finished(again.id)).toBe('completed');
    const refused = await runCli(['jobs:retry', bad2.id], fleet.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(`a newer config of ${app} \\(${re(good.id)}\\) already succeeded`),
    );
  });
});
