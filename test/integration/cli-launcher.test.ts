/**
 * bin/longshore.js on a copy of the checkout (so editing a source here touches no other test): the
 * first calls, started at once, all run and leave one complete build; a source changed after the
 * build is never run stale (the next call rebuilds and runs the new code); a build that fails
 * falls back to tsx, which names the broken file; a copy without src/ runs the bundle as it is.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

const copies: string[] = [];

function copyCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'longshore-launcher-'));
  copies.push(dir);
  for (const part of [
    'bin',
    'src',
    'infra',
    'charts',
    'rules',
    'examples',
    'package.json',
    'package-lock.json',
  ])
    cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'));
  return dir;
}

function run(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(dir, 'bin', 'longshore.js'), ...args],
      { cwd: dir, env: { ...process.env, LONGSHORE_CLI: '' }, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const current = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'dist', 'cli', 'current.json'), 'utf8')) as {
    dir: string;
    inputs: Record<string, [number, number]>;
  };

afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

describe('bin/longshore.js', () => {
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;

  it('runs every one of several first calls started at once, and leaves one complete build', async () => {
    const dir = copyCheckout();
    const results = await Promise.all(Array.from({ length: 6 }, () => run(dir, ['--version'])));
    for (const r of results)
      expect({ code: r.code, stdout: r.stdout.trim(), stderr: r.stderr }).toEqual({
        code: 0,
        stdout: version,
        stderr: '',
      });
    const build = current(dir);
    expect(existsSync(join(dir, 'dist', 'cli', build.dir, 'cli.js'))).toBe(true);
    expect(existsSync(join(dir, 'dist', 'cli', build.dir, 'lua', 'acquire.lua'))).toBe(true);
    expect(Object.keys(build.inputs)).toContain('src/cli.ts');
    // Nothing half-written or locked is left behind.
    expect(readdirSync(join(dir, 'dist', 'cli')).filter((n) => n.startsWith('.'))).toEqual([]);
    // The next call uses that build as it is.
    expect((await run(dir, ['--version'])).code).toBe(0);
    expect(current(dir).dir).toBe(build.dir);
  });

  it('rebuilds when a source changed after the build, and runs the new code', async () => {
    const dir = copyCheckout();
    expect((await run(dir, ['--help'])).stdout).toContain('A queue-driven deploy fleet for Kubernetes.');
    const before = current(dir).dir;
    const cli = join(dir, 'src', 'cli.ts');
    writeFileSync(
      cli,
      readFileSync(cli, 'utf8').replace(
        'A queue-driven deploy fleet for Kubernetes.',
        'An edited description.',
      ),
    );
    const edited = await run(dir, ['--help']);
    expect(edited.code).toBe(0);
    expect(edited.stdout).toContain('An edited description.');
    expect(current(dir).dir).not.toBe(before);
    // A file the bundle reads beside itself (an ordering script) counts as a source too.
    const lua = join(dir, 'src', 'jobs', 'ordering', 'lua', 'acquire.lua');
    writeFileSync(lua, `${readFileSync(lua, 'utf8')}\n-- edited\n`);
    expect((await run(dir, ['--version'])).code).toBe(0);
    const rebuilt = current(dir).dir;
    expect(readFileSync(join(dir, 'dist', 'cli', rebuilt, 'lua', 'acquire.lua'), 'utf8')).toContain(
      '-- edited',
    );
  });

  it('runs the sources through tsx when the build fails, which names the broken file', async () => {
    const dir = copyCheckout();
    writeFileSync(join(dir, 'src', 'producers', 'cli', 'commands', 'prune.ts'), 'export const = ;\n');
    const broken = await run(dir, ['--version']);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toContain('prune.ts');
    expect(existsSync(join(dir, 'dist', 'cli', 'current.json'))).toBe(false);
  });

  it('runs the bundle of a copy without src/ (an installed package)', async () => {
    const dir = copyCheckout();
    expect((await run(dir, ['--version'])).code).toBe(0);
    rmSync(join(dir, 'src'), { recursive: true });
    const installed = await run(dir, ['--version']);
    expect({ code: installed.code, stdout: installed.stdout.trim() }).toEqual({ code: 0, stdout: version });
  });
});
