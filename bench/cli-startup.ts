/**
 * `npm run bench -- cli-startup [--runs N]`: the wall time of one CLI call, start to exit, through
 * the real bin/longshore.js (what git hooks, cron scripts and loops over apps pay per call):
 * `apps:list` and an enqueuing `config:set APP K=V` (no --wait) against a private redis-server on
 * a free port, beside `kubectl version --client` (the real kubectl 1.33) and bare `node -e 0`.
 * N calls of each (default 20), interleaved so a busy machine slows all alike, after one warm-up
 * call of each (which also rebuilds the CLI bundle when a source changed). Target: median ≤ 250 ms
 * for both longshore commands; PASS/FAIL is printed per command.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureKubeTools } from '../infra/kube-sim/tools.ts';
import { startPrivateRedis } from '../src/dev/private-redis.ts';
import { CLI, ROOT, TEST_SECRET } from '../test/helpers/processes.ts';
import { median, printTable, ratio } from './fixtures/report.ts';

const TARGET_MS = 250;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

interface Subject {
  label: string;
  command: string;
  args: string[];
  /** Held to the target (longshore's own commands). */
  target: boolean;
}

/** Runs one call to its exit; its wall time in ms. A failing call ends the benchmark. */
function timeCall(subject: Subject, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(subject.command, subject.args, {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`${subject.label} exited ${code}: ${stderr.trim()}`));
    });
  });
}

function parseRuns(argv: string[]): number {
  const at = argv.indexOf('--runs');
  if (at === -1) return 20;
  const runs = Number(argv[at + 1]);
  if (!Number.isInteger(runs) || runs < 1) {
    console.error('--runs must be a whole number, at least 1');
    process.exit(2);
  }
  return runs;
}

export async function benchCliStartup(argv: string[]): Promise<void> {
  const runs = parseRuns(argv);
  // A local Redis as production runs it (fsync once a second), so the figure is the CLI's.
  const redis = await startPrivateRedis({ appendfsync: 'everysec' });
  const home = mkdtempSync(join(tmpdir(), 'longshore-cli-startup-'));
  const env = {
    ...process.env,
    REDIS_URL: redis.url,
    LONGSHORE_SECRET: TEST_SECRET,
    HOME: home,
    KUBECACHEDIR: join(home, 'kube-cache'),
    NO_COLOR: '1',
  };
  try {
    const { kubectl } = await ensureKubeTools();
    const subjects: Subject[] = [
      { label: 'longshore apps:list', command: process.execPath, args: [CLI, 'apps:list'], target: true },
      {
        label: 'longshore config:set shop K=V',
        command: process.execPath,
        args: [CLI, 'config:set', 'shop', 'K=V'],
        target: true,
      },
      { label: 'kubectl version --client', command: kubectl, args: ['version', '--client'], target: false },
      { label: 'node -e 0', command: process.execPath, args: ['-e', '0'], target: false },
    ];
    for (const subject of subjects) await timeCall(subject, env);
    const times = new Map<Subject, number[]>(subjects.map((s) => [s, []]));
    for (let i = 0; i < runs; i++) {
      for (const subject of subjects) times.get(subject)!.push(await timeCall(subject, env));
    }
    const kubectlMedian = median(times.get(subjects[2]!)!);
    const ms = (v: number) => v.toFixed(0);
    console.log(
      `\nCLI start-up: wall time of one call, start to exit, ${runs} calls each (median and p90), target median ≤ ${TARGET_MS} ms\n`,
    );
    printTable(
      ['command', 'target', 'median ms', 'p90 ms', 'vs kubectl', 'result'],
      subjects.map((subject) => {
        const values = times.get(subject)!;
        const m = median(values);
        return [
          subject.label,
          subject.target ? `≤ ${TARGET_MS} ms` : '—',
          ms(m),
          ms(percentile(values, 90)),
          `${ratio(m, kubectlMedian)}×`,
          subject.target ? (m <= TARGET_MS ? 'PASS' : 'FAIL') : '—',
        ];
      }),
    );
  } finally {
    await redis.stop();
  }
}
