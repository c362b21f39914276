/**
 * Invalid input: the CLI refuses it with exit code 2 and a message naming the field, writing
 * nothing; jobs forced into the queue anyway fail at once on the worker, without retry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENVELOPE_VERSION } from '../../src/jobs/envelope.ts';
import { startTestFleet, type TestFleet } from '../helpers/fleet.ts';
import { runCli } from '../helpers/processes.ts';
import { until } from '../helpers/wait.ts';

describe('invalid input', () => {
  let fleet: TestFleet;

  beforeAll(async () => {
    fleet = await startTestFleet();
  });

  afterAll(() => fleet.stop());

  it.each([
    [['deploy', 'Bad_App', '--image', 'nginx:1.27'], /app: must be lowercase/],
    [['deploy', 'web'], /image: is required/],
    [['deploy', 'web', '--image', 'UPPER/Case:tag'], /image: must be an image reference/],
    [['jobs:enqueue', 'teleport', '--payload', '{}'], /type: unknown job type "teleport"/],
    [['ps:scale', 'web', 'web=-1'], /processes: "web=-1"|processes\.web/],
    [['domains:add', 'web', 'not a domain'], /domains\.0: must be a hostname/],
    [['ports:add', 'web', 'http:80'], /ports\.0: must be scheme:host-port:container-port/],
    [['config:set', 'web', '1BAD=x'], /set\.1BAD: must be letters/],
    [
      ['config:set', 'web'],
      /set: give KEY=VALUE pairs, --env-file FILE, or - to read dotenv text from stdin/,
    ],
    [['config:get', 'web', '1BAD'], /keys\.0: must be letters/],
    [['config:show', 'Bad_App'], /app: must be lowercase/],
    [['config:show', 'web', '--dotenv'], /--dotenv: prints values to set again, so it needs --reveal/],
    [['apps:rename', 'web', 'web'], /newName: must differ/],
    [['apps:destroy', 'web'], /--force: destroying web cannot be undone/],
    [['storage:create', 'data', '--size', 'lots'], /entry\.size: must be a Kubernetes quantity/],
    [['storage:mount', 'web', 'data'], /mount\.mountPath: .*required/i],
    [['storage:mount', 'web', 'data:relative'], /mount\.mountPath: must be an absolute path/],
    [['storage:mount', 'web', 'data:/x', '--sub-path', '../up'], /mount\.subPath: must not contain "\.\."/],
    [['deploy', 'web', '--image', 'nginx', '--bogus'], /unknown option '--bogus'/],
    [
      ['deploy', 'web', '--image', 'nginx', '--env', 'K=1', '--unset-env', 'K'],
      /env\.K: is both set \(--env\/--env-file\) and unset \(--unset-env\)/,
    ],
    [['deploy', 'web', '--image', 'nginx', '--env', 'NOEQUALS'], /env: "NOEQUALS" is not KEY=VALUE/],
    [['deploy', 'web', '--image', 'nginx', '--unset-env', '1BAD'], /env\.1BAD/],
    [
      [
        'deploy',
        'web',
        '--image',
        'nginx',
        '--add-domain',
        'a.example.com',
        '--remove-domain',
        'a.example.com',
      ],
      /domains\.a\.example\.com: is both added and removed/,
    ],
    [['deploy', 'web', '--image', 'nginx', '--remove-domain', 'not a host'], /domains/],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await runCli(args, fleet.env);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });

  it('refuses values that cannot fit a Secret, naming the field', async () => {
    // Nine 120 KB values: over the 1 MiB a Secret holds, each under the kernel's argument limit.
    const big = Array.from({ length: 9 }, (_, i) => `BIG_${i}=${'v'.repeat(120_000)}`);
    const result = await runCli(['config:set', 'web', ...big], fleet.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /set: names and values total 1080\d+ bytes; a Secret holds at most 1048576 bytes/,
    );
  });

  it('refuses a dotenv file whose values cannot fit a Secret, as it refuses them on the command line', async () => {
    const { writeFileSync } = await import('node:fs');
    const file = `${fleet.redis.dir}/big.env`;
    writeFileSync(file, Array.from({ length: 9 }, (_, i) => `BIG_${i}="${'v'.repeat(120_000)}"\n`).join(''));
    const result = await runCli(['config:set', 'web', '--env-file', file], fleet.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /set: names and values total 1080\d+ bytes; a Secret holds at most 1048576 bytes/,
    );
  });

  it('refuses an env file too large to be a config, and names a missing one', async () => {
    const { writeFileSync } = await import('node:fs');
    const file = `${fleet.redis.dir}/huge.env`;
    writeFileSync(file, `A="${'v'.repeat(4 * 1024 * 1024)}"\n`);
    const huge = await runCli(['config:set', 'web', '--env-file', file], fleet.env);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(/--env-file: .*huge\.env is \d+ bytes; it may be at most 4 MiB/);
    // Node itself (20, 22) reads a `--env-file` anywhere on its command line, even after the
    // script, and refuses a missing one before longshore runs (docs/apps.md): either way the
    // person is told which file.
    const missing = await runCli(['config:set', 'web', '--env-file', '/nonexistent.env'], fleet.env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/\/nonexistent\.env.*(not found|does not exist)/);
  });

  it('refuses a payload over the queue limit', async () => {
    const payload = JSON.stringify({ app: 'web', command: ['echo', 'x'.repeat(2.5 * 1024 * 1024)] });
    const file = `${fleet.redis.dir}/huge.json`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, payload);
    const result = await runCli(['jobs:enqueue', 'run', '--payload', `@${file}`], fleet.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/payload: is \d+ bytes; a job payload may be at most 2097152 bytes/);
  });

  it('wrote nothing to Redis for any refused command', async () => {
    // Only BullMQ's queue metadata (written when the test's own producer connected) may exist.
    expect((await fleet.client.keys('{longshore}*')).filter((k) => k !== '{longshore}:jobs:meta')).toEqual(
      [],
    );
  });

  it('fails jobs forced into the queue at once, without retry, naming the problem', async () => {
    await fleet.startWorker();
    const envelope = (payload: unknown) => ({
      v: ENVELOPE_VERSION,
      payload,
      enqueuedAt: Date.now(),
      enqueuedBy: 'test',
    });
    const forced = [
      {
        name: 'deploy',
        data: envelope({ app: 'Bad_App', image: 'nginx:1.27' }),
        reason: /app: must be lowercase/,
      },
      { name: 'deploy', data: envelope({ app: 'web' }), reason: /image: is required/ },
      { name: 'teleport', data: envelope({}), reason: /type: unknown job type "teleport"/ },
      { name: 'scale', data: { app: 'web', processes: { web: 1 } }, reason: /invalid job data/ },
      {
        name: 'config',
        data: envelope({ app: 'web', set: { TOKEN: 'plaintext!' } }),
        reason: /set\.TOKEN: must be a value sealed/,
      },
      {
        name: 'run',
        data: envelope({ app: 'web', command: ['true'] }),
        reason: /no handler for "run" jobs in this worker/,
      },
    ];
    const ids: string[] = [];
    for (const [i, job] of forced.entries()) {
      const added = await fleet.jobs.queue.add(job.name, job.data, {
        jobId: `forced-${i}`,
        attempts: 5,
        backoff: 10,
      });
      ids.push(added.id!);
    }
    for (const [i, id] of ids.entries()) {
      await until(async () => (await fleet.jobState(id)) === 'failed' || undefined, `${id} to fail`);
      const job = (await fleet.jobs.queue.getJob(id))!;
      expect(job.failedReason).toMatch(forced[i]!.reason);
      // One attempt of five allowed: refused at once, never retried.
      expect(job.attemptsMade).toBe(1);
    }
  });
});
