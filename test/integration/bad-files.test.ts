/**
 * Bad Procfile and app.json files (issue 11, case 8): the real CLI refuses each with exit code 2,
 * the file's name and the JSON path or line of the problem, and enqueues nothing. Files that are
 * not regular files (`/dev/zero`, a FIFO, a directory) are refused at once instead of hanging.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestFleet, type TestFleet } from '../helpers/fleet.ts';
import { runCli } from '../helpers/processes.ts';

/** Far longer than a refusal takes; a CLI that hangs is killed at this bound and the test fails. */
const BOUND_MS = 30_000;

let fleet: TestFleet;
let dir: string;

beforeAll(async () => {
  fleet = await startTestFleet();
  dir = mkdtempSync(join(tmpdir(), 'longshore-bad-files-'));
});

afterAll(async () => {
  await fleet?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const PROCFILE = 'web: bin/server\nworker: bin/worker\n';

async function deployWith(files: { procfile?: string; appJson?: string }) {
  return runCli(
    [
      'deploy',
      'bad',
      '--image',
      'nginx:1.27',
      ...(files.procfile ? ['--procfile', files.procfile] : []),
      ...(files.appJson ? ['--app-json', files.appJson] : []),
    ],
    fleet.env,
    BOUND_MS,
  );
}

describe('bad app.json files', () => {
  it.each([
    ['{"cron":"x"}', /cron: must be a list of cron tasks.*; got the string "x"/],
    ['{"cron":[null]}', /cron\[0\]: must be a cron task \(an object\); got null/],
    ['{"cron":[{"command":"x","schedule":"every day"}]}', /cron\[0\]\.schedule: must have 5 fields/],
    ['{"healthchecks":{"web":5}}', /healthchecks\.web: must be a list of healthchecks.*; got the number 5/],
    [
      '{"healthchecks":{"web":"abc"}}',
      /healthchecks\.web: must be a list of healthchecks.*; got the string "abc"/,
    ],
    [
      '{"healthchecks":{"web":[{"path":"/","port":"5000"}]}}',
      /healthchecks\.web\[0\]\.port: must be a whole number/,
    ],
    [
      '{"formation":{"web":{"quantity":"2"}}}',
      /formation\.web\.quantity: must be a whole number from 0 to 1000/,
    ],
    ['{"formation":{"web":{"quantitiy":2}}}', /formation\.web: unknown key "quantitiy"/],
    ['{"formation": {', /is not valid JSON: .*line 1 column/],
    ['[1, 2]', /must be a JSON object; got a list/],
  ])('refuses %s with exit 2, naming the file and the path', async (content, message) => {
    const path = file('app.json', content);
    const result = await deployWith({ appJson: path });
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain(path);
    expect(result.stderr).not.toMatch(/TypeError|at .*\.ts:\d+/);
    expect(result.code).toBe(2);
  });

  it('refuses a formation naming a process type the Procfile does not declare', async () => {
    const result = await deployWith({
      procfile: file('Procfile', PROCFILE),
      appJson: file('app.json', '{"formation":{"nope":{"quantity":1}}}'),
    });
    expect(result.stderr).toMatch(
      /formation\.nope: names process type "nope", which .*Procfile does not declare; it declares: web, worker/,
    );
    expect(result.code).toBe(2);
  });
});

describe('bad Procfiles', () => {
  it.each([
    ['web bin/server\n', /line 1: expected "type: command"/],
    ['web: a\nweb: b\n', /line 2: process type "web" is defined twice \(first on line 1\)/],
    ['Web_1: a\n', /line 1: process type "Web_1" must be lowercase letters/],
    ['# only comments\n', /declares no process type/],
  ])('refuses %j with exit 2, naming the file and the line', async (content, message) => {
    const path = file('Procfile', content);
    const result = await deployWith({ procfile: path });
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain(path);
    expect(result.code).toBe(2);
  });
});

describe('files that are not small regular files', () => {
  it('refuses /dev/zero at once instead of reading forever', async () => {
    const result = await deployWith({ procfile: '/dev/zero' });
    expect(result.stderr).toMatch(/--procfile: \/dev\/zero is a character device; give a regular file/);
    expect(result.code).toBe(2);
  });

  it('refuses jobs:enqueue --payload @/dev/zero at once too', async () => {
    const result = await runCli(['jobs:enqueue', 'deploy', '--payload', '@/dev/zero'], fleet.env, BOUND_MS);
    expect(result.stderr).toMatch(/--payload: \/dev\/zero is a character device; give a regular file/);
    expect(result.code).toBe(2);
  });

  it('refuses a FIFO without waiting for a writer', async () => {
    const fifo = join(dir, 'app.fifo');
    execFileSync('mkfifo', [fifo]);
    const result = await deployWith({ appJson: fifo });
    expect(result.stderr).toMatch(/--app-json: .*app\.fifo is a named pipe \(FIFO\); give a regular file/);
    expect(result.code).toBe(2);
  });

  it('refuses a directory, a missing file and a file over the size limit', async () => {
    const sub = join(dir, 'a-directory');
    mkdirSync(sub);
    const directory = await deployWith({ procfile: sub });
    expect(directory.stderr).toMatch(/--procfile: .*a-directory is a directory; give a regular file/);
    expect(directory.code).toBe(2);

    const missing = await deployWith({ appJson: join(dir, 'absent.json') });
    expect(missing.stderr).toMatch(/--app-json: .*absent\.json does not exist/);
    expect(missing.code).toBe(2);

    const big = file('big.Procfile', `web: a\n${'# padding\n'.repeat(30_000)}`);
    const tooBig = await deployWith({ procfile: big });
    expect(tooBig.stderr).toMatch(/--procfile: .*big\.Procfile is 300007 bytes; it may be at most 256 KiB/);
    expect(tooBig.code).toBe(2);

    const binary = file('binary.json', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    const notText = await deployWith({ appJson: binary });
    expect(notText.stderr).toMatch(/--app-json: .*binary\.json is not UTF-8 text/);
    expect(notText.code).toBe(2);
  });
});

describe('after every refusal', () => {
  it('nothing was enqueued or written to Redis', async () => {
    // Only BullMQ's queue metadata (written when the test's own producer connected) may exist.
    expect((await fleet.client.keys('{longshore}*')).filter((k) => k !== '{longshore}:jobs:meta')).toEqual(
      [],
    );
  });
});
