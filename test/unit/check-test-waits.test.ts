/**
 * scripts/check-test-waits.ts, the `npm run lint` step that keeps fixed sleeps out of test/: what
 * it finds (planted sleeps), what it leaves alone (timers that are not waits, text in comments and
 * strings), and that the tree as committed is clean.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTree, findBareWaits } from '../../scripts/check-test-waits.ts';
import { ROOT } from '../helpers/processes.ts';

const whats = (source: string) => findBareWaits(source).map((f) => `${f.line}: ${f.what}`);

describe('check-test-waits', () => {
  it.each([
    ['await new Promise((r) => setTimeout(r, 100));', 'a Promise around setTimeout (a fixed sleep)'],
    [
      'await new Promise<void>((resolve) =>\n  setTimeout(resolve, 2_000),\n);',
      'a Promise around setTimeout (a fixed sleep)',
    ],
    [
      'const tick = new Promise((r) => { setInterval(() => r(1), 5); });',
      'a Promise around setTimeout (a fixed sleep)',
    ],
    ['function sleep(ms: number) { return pause(ms); }', 'a local sleep function'],
    ['async function delay(ms) {}', 'a local sleep function'],
    ['const wait = (ms: number) => other(ms);', 'a local sleep function'],
    ["import { setTimeout as sleep } from 'node:timers/promises';", 'a timers/promises import (a sleep)'],
    ["const t = require('node:timers/promises');", 'a timers/promises import (a sleep)'],
    ["const t = await import('timers/promises');", 'a timers/promises import (a sleep)'],
    ['const nap = promisify(setTimeout);', 'promisify(setTimeout) (a sleep)'],
    ['await vi.waitFor(() => expect(x).toBe(1));', 'vi.waitFor/vi.waitUntil (a second polling helper)'],
    [
      'while (Date.now() < deadline) { if (await probe()) break; }',
      'a polling loop of its own (its condition reads the clock)',
    ],
  ])('finds %s', (source, what) => {
    expect(whats(source)).toEqual([`1: ${what}`]);
  });

  it('names the line, and leaves timers that are not waits, comments and strings alone', () => {
    const source = [
      "import { until } from '../helpers/wait.ts';",
      '// await new Promise((r) => setTimeout(r, 100)) was how this used to wait',
      "const text = 'new Promise((r) => setTimeout(r, 1))';",
      'const pattern = /function sleep(/;',
      "setTimeout(() => controller.abort(new Error('cancelled')), 300);",
      'const ok = await until(() => done, "done");',
      'const sleepy = 1 / 2;',
      '',
      'await new Promise((r) => setTimeout(r, 5));',
    ].join('\n');
    expect(findBareWaits(source)).toEqual([
      { line: 9, column: 7, what: 'a Promise around setTimeout (a fixed sleep)' },
    ]);
  });

  it('fails `node scripts/check-test-waits.ts` on a planted sleep, naming file:line and what to use', () => {
    const root = mkdtempSync(join(tmpdir(), 'check-test-waits-'));
    try {
      mkdirSync(join(root, 'test', 'helpers'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules')); // for --import tsx
      writeFileSync(
        join(root, 'test', 'planted.test.ts'),
        "it('x', async () => {\n  await new Promise((r) => setTimeout(r, 100));\n});\n",
      );
      // The wait helpers themselves may hold timers.
      writeFileSync(
        join(root, 'test', 'helpers', 'wait.ts'),
        'const pause = (ms) => new Promise((r) => setTimeout(r, ms));\n',
      );
      const run = spawnSync(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'scripts/check-test-waits.ts')],
        {
          cwd: root,
          encoding: 'utf8',
        },
      );
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(
        'test/planted.test.ts:2:9: a Promise around setTimeout (a fixed sleep); wait for a condition with until(probe, what)',
      );
      expect(run.stderr).toContain('holdFor(ms, why)');
      expect(run.stderr).not.toContain('helpers/wait.ts:');
      expect(run.stderr).toContain('check-test-waits: 1 bare wait(s) in tests');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('finds nothing in the tests as they are', () => {
    expect(checkTree(ROOT, ['test'])).toEqual([]);
  });
});
