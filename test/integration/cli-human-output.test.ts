/**
 * The CLI's human output against a real fleet: times as relative and ISO (never epoch ms), colour
 * only when asked for (a pipe is not a terminal; FORCE_COLOR, NO_COLOR), and `--json` exactly the
 * records scripts read, colour or not.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laneId } from '../../src/jobs/lane.ts';
import { listLaneStatuses, readLaneStatus } from '../../src/jobs/status.ts';
import { stripAnsi } from '../../src/producers/cli/output.ts';
import { startTestFleet, type TestFleet } from '../helpers/fleet.ts';
import { CLI, runCli } from '../helpers/processes.ts';

const TIME = /(?:just now|\d+ (?:second|minute|hour|day)s? ago) \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)/;
const TIME_LINE = (key: string) => new RegExp(`^ *${key} +${TIME.source}$`, 'm');
const EPOCH_MS = /\b1\d{12}\b/;
const ESC = '\u001b[';
const relativeSetAside = (text: string) => text.replace(/just now|\d+ \w+ ago/g, '…');

describe('human output of the CLI', () => {
  let fleet: TestFleet;
  const cli = async (args: string[], env: Record<string, string> = {}) => {
    const result = await runCli(args, { ...fleet.env, ...env });
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };

  beforeAll(async () => {
    fleet = await startTestFleet();
    await fleet.startWorker();
    await cli(['ps:scale', 'shown', 'web=1', '--wait']);
    const failed = await runCli(
      ['jobs:enqueue', 'scale', '--payload', '{"app":"broken","processes":{"web":1,"boom":1}}', '--wait'],
      fleet.env,
    );
    expect(failed.code).toBe(1);
  });

  afterAll(() => fleet.stop());

  it('apps:status shows times relative and ISO, aligned, and no epoch milliseconds', async () => {
    const text = await cli(['apps:status', 'shown']);
    expect(text).not.toMatch(EPOCH_MS);
    expect(text).toMatch(/^app +shown$/m);
    expect(text).toMatch(/^last job +scale app\.shown\.1$/m);
    expect(text).toMatch(/^ {2}outcome +completed$/m);
    expect(text).toMatch(TIME_LINE('finished'));
    expect(text).toMatch(TIME_LINE('updated'));
    expect(text).not.toContain(ESC);
    // One value column.
    const starts = new Set(
      text
        .trimEnd()
        .split('\n')
        .map((l) => /^(\s*\S+(?: \S+)*\s+)/.exec(l)?.[1]?.length),
    );
    expect(starts.size).toBe(1);
  });

  it('apps:status --json and apps:list --json are the projection, byte for byte, colour asked for or not', async () => {
    const status = await readLaneStatus(fleet.client, laneId({ kind: 'app', name: 'shown' }));
    const expected = `${JSON.stringify(status, null, 2)}\n`;
    expect(await cli(['apps:status', 'shown', '--json'])).toBe(expected);
    expect(await cli(['apps:status', 'shown', '--json'], { FORCE_COLOR: '1' })).toBe(expected);
    const list = await listLaneStatuses(fleet.client, 'app');
    expect(await cli(['apps:list', '--json'], { FORCE_COLOR: '1' })).toBe(
      `${JSON.stringify(list, null, 2)}\n`,
    );
    expect(JSON.parse(expected).lastFinishedAt).toEqual(expect.any(Number));
  });

  it('colours outcomes and bolds headers only when colour is on; the columns line up either way', async () => {
    const coloured = await cli(['apps:list'], { FORCE_COLOR: '1' });
    expect(coloured).toContain(`${ESC}32mcompleted${ESC}39m`);
    expect(coloured).toContain(`${ESC}31mfailed${ESC}39m`);
    expect(coloured).toContain(`${ESC}1mAPP${ESC}22m`);
    const plain = await cli(['apps:list']);
    // The same text but for the colour (relative times read at another second set aside).
    expect(relativeSetAside(stripAnsi(coloured))).toBe(relativeSetAside(plain));
    expect(plain).not.toContain(ESC);
    expect(await cli(['apps:list'], { FORCE_COLOR: '1', NO_COLOR: '1' })).not.toContain(ESC);
    const [header, ...rows] = plain.trimEnd().split('\n');
    const updated = header!.indexOf('UPDATED');
    for (const row of rows) expect(row.slice(updated)).toMatch(new RegExp(`^${TIME.source}$`));
  });

  it('on a real terminal: coloured; NO_COLOR=1 there: plain', async () => {
    const { NO_COLOR: _no, FORCE_COLOR: _force, ...inherited } = process.env;
    const onTerminal = (env: Record<string, string>) =>
      new Promise<string>((resolve, reject) => {
        const command = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} apps:list`;
        const child = spawn('script', ['-qfec', command, '/dev/null'], {
          env: { ...inherited, ...fleet.env, TERM: 'xterm', ...env },
          stdio: ['pipe', 'pipe', 'inherit'],
        });
        let text = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
        child.once('error', reject);
        child.once('close', (code) =>
          code === 0 ? resolve(text) : reject(new Error(`exit ${code}: ${text}`)),
        );
      });
    const coloured = await onTerminal({});
    expect(coloured).toContain(`${ESC}32mcompleted${ESC}39m`);
    expect(coloured).toContain(`${ESC}1mAPP${ESC}22m`);
    const plain = await onTerminal({ NO_COLOR: '1' });
    expect(plain).toMatch(/^APP +LAST JOB/m);
    expect(plain).not.toContain(ESC);
  });

  it('jobs:list and jobs:show show when a job was enqueued, relative and ISO', async () => {
    const list = await cli(['jobs:list']);
    expect(list).toMatch(new RegExp(`app\\.shown\\.1 +completed +1 +${TIME.source} +scale`));
    expect(list).not.toMatch(EPOCH_MS);
    const shown = await cli(['jobs:show', 'app.broken.1']);
    expect(shown).toMatch(/^app\.broken\.1 {2}scale {2}failed$/m);
    expect(shown).toMatch(new RegExp(`^enqueued +${TIME.source} by cli:`, 'm'));
    expect(shown).toMatch(new RegExp(`^attempt 1 +\\S+ {2}${TIME.source} {2}failed`, 'm'));
    expect(shown).not.toMatch(EPOCH_MS);
  });
});
