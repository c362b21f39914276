/**
 * Sealed values: config values set through the CLI reach the worker intact, and no key in Redis,
 * no byte of its append-only file, no log line and no `jobs:show` output contains them in clear.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestFleet, type TestFleet } from '../helpers/fleet.ts';
import { runCli } from '../helpers/processes.ts';
import { everyValueInRedis } from '../helpers/redis-values.ts';
import { until } from '../helpers/wait.ts';

const SECRETS = {
  DATABASE_URL: 'postgres://admin:hunter2-very-secret@db.internal:5432/app',
  API_TOKEN: 'tok_live_9f8e7d6c5b4a3210-plaintext-marker',
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('sealed secret values', () => {
  let fleet: TestFleet;

  beforeAll(async () => {
    fleet = await startTestFleet({ LONGSHORE_LOG_LEVEL: 'debug' });
    await fleet.startWorker();
  });

  afterAll(() => fleet.stop());

  it('opens them in the worker and keeps them out of Redis, its files and the logs', async () => {
    const assignments = Object.entries(SECRETS).map(([k, v]) => `${k}=${v}`);
    const set = await runCli(['config:set', 'vault', ...assignments, '--wait'], fleet.env);
    expect(set.code, set.stderr).toBe(0);
    const unset = await runCli(['config:unset', 'vault', 'OLD_KEY', '--wait'], fleet.env);
    expect(unset.code, unset.stderr).toBe(0);

    // The worker unsealed exactly what was typed.
    const expected = createHash('sha256');
    for (const [k, v] of Object.entries(SECRETS).sort()) expected.update(`${k}=${v}\n`);
    const applied = await fleet.waitForEvent(
      (e) => e.phase === 'config' && (e.keys as string[]).length === 2,
      'the config handler',
    );
    expect(applied.digest).toBe(expected.digest('hex'));

    const plaintexts = Object.values(SECRETS).flatMap((v) => [v, Buffer.from(v).toString('base64')]);
    const inRedis = (await everyValueInRedis(fleet.client)).join('\n');
    for (const p of plaintexts) expect(inRedis).not.toContain(p);
    expect(inRedis).toContain('DATABASE_URL'); // names are not secret

    await fleet.client.call('BGREWRITEAOF');
    await until(
      async () =>
        (await fleet.client.info('persistence')).includes('aof_rewrite_in_progress:0') ? true : undefined,
      'AOF rewrite',
    );
    for (const file of filesUnder(fleet.redis.dir)) {
      const bytes = readFileSync(file, 'latin1');
      for (const p of plaintexts) expect(bytes, file).not.toContain(p);
    }

    const logs = fleet.workers[0]!.output() + set.stdout + set.stderr;
    for (const p of plaintexts) expect(logs).not.toContain(p);

    const jobId = /enqueued config job (\S+)/.exec(set.stdout)![1]!;
    const shown = await runCli(['jobs:show', jobId, '--json'], fleet.env);
    expect(shown.code).toBe(0);
    const details = JSON.parse(shown.stdout) as { payload: { set: Record<string, string> } };
    expect(details.payload.set).toEqual({ API_TOKEN: '[sealed]', DATABASE_URL: '[sealed]' });
  });

  it('refuses to seal without LONGSHORE_SECRET, before enqueueing', async () => {
    const result = await runCli(['config:set', 'vault', 'A=b'], { ...fleet.env, LONGSHORE_SECRET: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/LONGSHORE_SECRET is not set/);
  });
});
