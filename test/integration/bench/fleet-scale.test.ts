/**
 * `npm run bench -- scale` at tiny sizes: the benchmark runs end to end (set-up, deploys through
 * real worker processes, the Helm loop with real Helm 4, two syncs, hand edits with kubectl, the
 * memory phase's domain changes) and
 * prints every figure line with its target. Timings are the benchmark's business, not asserted here.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

function runBench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bench/run-all.ts', 'scale', ...args],
      { cwd: ROOT, timeout: 170_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('bench: fleet scale', () => {
  it('runs at tiny sizes and prints every figure with its target and verdict', async () => {
    const { code, stdout, stderr } = await runBench([
      '--apps',
      '5',
      '--workers',
      '1',
      '--helm-apps',
      '2',
      // 3: one revision more than set-up and the round make, so the domain-change path runs.
      '--revisions',
      '3',
    ]);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    const verdict = '(PASS|FAIL) {2}';
    for (const line of [
      /^reproduce: npm run bench -- scale --apps 5 --workers 1 /m,
      // (1) deploys: one longshore row per worker count and the Helm row, then both targets.
      /^\| system +\| workers +\| +wall s \| +deploys\/s \| +p50 ms \| +p99 ms \| +requests\/deploy \| +writes\/deploy \|$/m,
      /^\| longshore +\| 1 +\|/m,
      /^\| Helm 4 ×3 \(Dokku\), 2 apps ×2\.5 +\| 1 loop +\| +[\d.]+ \(extrapolated\) \|/m,
      new RegExp(`^${verdict}≥ 5× fewer API requests per deploy than Helm: `, 'm'),
      new RegExp(`^${verdict}≥ 5× less wall time than Helm for 5 apps: `, 'm'),
      // (2) syncs.
      /^\| nothing drifted +\| 0 objects +\|/m,
      /^\| 1 % of apps edited +\| 3 objects \(2 repairable\) +\|/m,
      new RegExp(`^${verdict}no drift: 0 writes: \\d+$`, 'm'),
      new RegExp(`^${verdict}no drift: no read beyond the informers' watches: \\d+ get/list$`, 'm'),
      new RegExp(`^${verdict}drift: writes equal the drifted objects: \\d+ writes, 2 repairable `, 'm'),
      new RegExp(`^${verdict}drift: LOG_LEVEL removed from config-\\{app\\} is reported as lost`, 'm'),
      // (3) memory.
      /^\| worker 1 +\| RSS right after a full sync +\| +[\d.]+ MB \|$/m,
      /^\| worker 1 +\| RSS settled \(\d+ s after the sync\) +\| +[\d.]+ MB \|$/m,
      /^\| kube-sim +\| RSS of the benchmark process \(kube-sim in it\) +\| +[\d.]+ MB \|$/m,
      /^\| redis-server +\| used_memory per 1,000 finished deploy jobs +\| +-?[\d.]+ MB \|$/m,
      /^\| redis-server +\| used_memory per app after set-up \(its 4 jobs kept\) +\| +-?[\d.]+ KB \|$/m,
      /^\| redis-server +\| commands per deploy \(rounds of \(1\), polling included\) +\| +\d+ \|$/m,
      /^ {4}release storage: [\d.]+ Secrets per app \(.*index [\d.]+/m,
      // Set-up's deploy, the round's and one domain change: every app has its 3 revisions.
      /^ {4}app revisions in release storage: 3 to 3 per app \(asked: 3;/m,
      new RegExp(`^${verdict}worker RSS ≤ 200 MB: [\\d.]+ MB settled`, 'm'),
      /^ {4}right after the sync: [\d.]+ MB \(largest\)/m,
    ])
      expect(stdout).toMatch(line);
    // The no-drift sync writes nothing and the drift sync repairs what it can: these are
    // correctness, not timing, so they hold at any size.
    expect(stdout).toMatch(/^PASS {2}no drift: 0 writes: 0$/m);
    expect(stdout).toMatch(/^PASS {2}drift: writes equal the drifted objects/m);
    expect(stdout).toMatch(/^PASS {2}drift: LOG_LEVEL removed/m);
  }, 180_000);
});
