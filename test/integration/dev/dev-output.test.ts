/**
 * What `longshore dev` prints: its startup log lines, then the instructions block in one piece,
 * then later log lines below it. JSON lines when stdout is a pipe; pino-pretty lines on a terminal
 * (a real pty from `script`); LONGSHORE_LOG_FORMAT overrides either way.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stripAnsi } from '../../../src/producers/cli/output.ts';
import { DEV_ENV, devEnv, startDev } from '../../helpers/dev.ts';
import { redisServersIn } from '../../helpers/process-tree.ts';
import { CLI, killAll, ROOT, runCli, startProcess } from '../../helpers/processes.ts';
import { until } from '../../helpers/wait.ts';

const cleanups: (() => void)[] = [];

afterEach(async () => {
  for (const clean of cleanups.splice(0)) clean();
  await killAll();
});

function stateDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'longshore-dev-out-')), '.longshore');
  cleanups.push(() => {
    for (const pid of redisServersIn(join(dir, 'redis'))) process.kill(pid, 'SIGKILL');
  });
  return dir;
}

const FIRST = /^longshore dev is running$/;
const LAST = /^More: npx longshore --help.*Stop with Ctrl-C; state is kept for the next start\.$/;

/** The output split around the instructions block, which must be there once, whole. */
function split(lines: string[]): { before: string[]; block: string[]; after: string[] } {
  const start = lines.findIndex((l) => FIRST.test(l));
  const end = lines.findIndex((l) => LAST.test(l));
  expect(start, lines.join('\n')).toBeGreaterThan(0);
  expect(end, lines.join('\n')).toBeGreaterThan(start);
  expect(lines.filter((l) => FIRST.test(l))).toHaveLength(1);
  // The blank line that opens the block belongs to it.
  return {
    before: lines.slice(0, start - 1),
    block: lines.slice(start - 1, end + 1),
    after: lines.slice(end + 1),
  };
}

const isJson = (line: string) => {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
};
const msg = (line: string) => (JSON.parse(line) as { msg: string }).msg;

describe('longshore dev output', () => {
  it('in a pipe: JSON startup lines, then the block with no log line inside it, then JSON lines below', async () => {
    const dir = stateDir();
    const dev = await startDev(dir);
    // A job after the block: its worker lines come below it.
    const set = await runCli(['config:set', 'hello', 'A=1', '--wait'], devEnv(dir));
    expect(set.code, set.stderr).toBe(0);
    await until(() => dev.lines.some((l) => /"msg":"job completed"/.test(l)) || undefined, 'the job logged');
    dev.kill('SIGTERM');
    await dev.exited;

    const { before, block, after } = split(dev.lines);
    expect(before.length).toBeGreaterThan(0);
    expect(before.every(isJson), before.join('\n')).toBe(true);
    expect(before.map(msg)).toEqual(
      expect.arrayContaining(['worker started', 'sync scheduler off (LONGSHORE_SYNC_INTERVAL_MS=0)']),
    );
    expect(block.filter(isJson)).toEqual([]);
    expect(block.some((l) => /^ {2}npx longshore deploy hello /.test(l))).toBe(true);
    expect(after.every(isJson), after.join('\n')).toBe(true);
    expect(after.map(msg)).toEqual(
      expect.arrayContaining(['job started', 'job completed', 'stopping', 'worker stopped']),
    );
  });

  it('LONGSHORE_LOG_FORMAT=pretty in a pipe: pino-pretty lines, uncoloured, and the same order', async () => {
    const dir = stateDir();
    const dev = startProcess(CLI, ['dev', '--state-dir', dir], {
      ...DEV_ENV,
      LONGSHORE_LOG_FORMAT: 'pretty',
    });
    await dev.waitForLine(LAST, 60_000);
    dev.kill('SIGTERM');
    await dev.exited;
    const { before, block, after } = split(dev.lines);
    expect(
      before.some((l) => /^\[\d\d:\d\d:\d\d\] INFO: worker started \{"worker":/.test(l)),
      before.join('\n'),
    ).toBe(true);
    expect([...before, ...after].filter(isJson)).toEqual([]);
    expect(dev.output()).not.toContain('\u001b[');
    expect(block.filter((l) => / INFO: /.test(l))).toEqual([]);
    expect(
      after.some((l) => / INFO: stopping \{"reason":"SIGTERM"\}$/.test(l)),
      after.join('\n'),
    ).toBe(true);
  });

  it('on a terminal: pretty lines before the block; LONGSHORE_LOG_FORMAT=json keeps JSON there', async () => {
    for (const [format, pretty] of [
      ['', true],
      ['json', false],
    ] as const) {
      const dir = stateDir();
      const term = inTerminal(dir, { LONGSHORE_LOG_FORMAT: format });
      await until(
        () => (term.lines().some((l) => LAST.test(l)) ? true : undefined),
        'the block on the terminal',
        {
          timeoutMs: 60_000,
        },
      );
      const { before, block } = split(term.lines());
      expect(block.filter((l) => / INFO: /.test(l) || isJson(l))).toEqual([]);
      if (pretty) {
        expect(before.filter(isJson)).toEqual([]);
        expect(
          before.some((l) => /\] INFO: worker started/.test(l)),
          before.join('\n'),
        ).toBe(true);
      } else {
        expect(before.every(isJson), before.join('\n')).toBe(true);
      }
      term.child.kill('SIGTERM');
      await until(
        () => (term.child.exitCode !== null || term.child.signalCode !== null ? true : undefined),
        'script to end',
      );
    }
  });
});

/** `longshore dev` in a pseudo-terminal (`script`), its screen output as plain lines. */
function inTerminal(
  dir: string,
  env: Record<string, string>,
): { child: ChildProcess; raw(): string; lines(): string[] } {
  const command = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} dev --state-dir ${JSON.stringify(dir)}`;
  // A terminal as a developer's: colour not turned off or forced (unset: Node warns about both set).
  const { NO_COLOR: _no, FORCE_COLOR: _force, ...inherited } = process.env;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: ROOT,
    env: { ...inherited, ...DEV_ENV, TERM: 'xterm', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  cleanups.push(() => child.kill('SIGKILL'));
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
  return {
    child,
    raw: () => text,
    lines: () => {
      const lines = stripAnsi(text).replace(/\r/g, '').split('\n');
      return lines.at(-1) === '' ? lines.slice(0, -1) : lines;
    },
  };
}
