/**
 * Issue 11, case 7: connection loss and start-up errors, through real processes.
 * - `--wait` rides out a Redis restart (kill -9, same port, AOF) and says so once;
 * - a CLI command against a port where nothing listens prints one line and exits 1;
 * - a worker that loses Redis, or never had it, logs JSON lines only, a few of them (back-off);
 * - a worker whose metrics port is taken, and kube-sim on a taken port, exit 1 naming the port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/private-redis.ts';
import { startTestFleet, type TestFleet } from '../helpers/fleet.ts';
import { CLI, fleetEnv, killAll, type Proc, ROOT, runCli, startProcess } from '../helpers/processes.ts';
import { holdFor, stays, until } from '../helpers/wait.ts';

const WORKER = `${ROOT}test/fixtures/recording-worker.ts`;

/** Every line a fleet process printed, parsed as a pino JSON line (the fixture's own banner aside). */
function jsonLines(proc: Proc): { level: number; msg: string; [key: string]: unknown }[] {
  return proc.lines
    .filter((line) => line.trim() !== '' && !line.startsWith('recording-worker ready'))
    .map((line) => {
      try {
        return JSON.parse(line) as { level: number; msg: string };
      } catch {
        throw new Error(`not a JSON log line: ${line}\n--- all output ---\n${proc.output()}`);
      }
    });
}

function exitOf(proc: Proc, timeoutMs = 30_000) {
  let result: { code: number | null } | undefined;
  void proc.exited.then((r) => {
    result = r;
  });
  return until(() => result, `the process to exit\n${proc.output()}`, { timeoutMs, intervalMs: 100 });
}

describe('connection loss', () => {
  let fleet: TestFleet;

  beforeAll(async () => {
    fleet = await startTestFleet();
    // `domains` jobs hold for 4 s after their effect: the restart happens while the job runs.
    await fleet.startWorker({ TEST_HOLD_MS: '4000' }, 2);
  });

  afterAll(() => fleet.stop());

  it('--wait rides out a Redis restart, says it is waiting once, and ends with the job’s result', async () => {
    const cli = startProcess(CLI, ['domains:add', 'bouncy', 'bouncy.example.com', '--wait'], fleet.env);
    await cli.waitForLine(/waiting for it to finish/);
    await fleet.waitForEvent((e) => e.app === 'bouncy' && e.phase === 'effect', 'the domains job to run');

    await fleet.redis.kill();
    await holdFor(1_500, 'Redis down long enough for --wait to notice and say it is waiting');
    await fleet.redis.start();

    const { code } = await exitOf(cli, 60_000);
    const output = cli.output();
    expect(code, output).toBe(0);
    expect(output).toMatch(/app\.bouncy\.1 completed: effect applied/);
    expect(
      cli.lines.filter((l) => /waiting for Redis at 127\.0\.0\.1:\d+ /.test(l)),
      output,
    ).toHaveLength(1);
    expect(output).not.toMatch(/max retries per request/i);
    expect(output).not.toMatch(/^\s+at /m);
  });

  it('a worker that loses Redis logs a few JSON lines, never raw ioredis errors, and says when it is back', async () => {
    const worker = fleet.workers[0]!;
    const before = worker.lines.length;
    await fleet.redis.kill();
    await holdFor(4_000, 'Redis down for 4 s: several reconnect attempts, so the back-off of the log shows');
    await fleet.redis.start();
    await worker.waitForLine(/connected to Redis at 127\.0\.0\.1:\d+ again/);

    const lines = jsonLines(worker);
    expect(worker.output()).not.toMatch(/Unhandled error event/);
    const outage = lines.slice(before).filter((l) => l.level >= 40);
    // Four connections reconnecting every few hundred ms for 4 s would be dozens of lines.
    expect(outage.length, worker.output()).toBeGreaterThan(0);
    expect(outage.length, worker.output()).toBeLessThanOrEqual(6);
  });
});

describe('Redis not there at all', () => {
  afterEach(() => killAll());

  it('every CLI command prints one line naming Redis and exits 1, no stack', async () => {
    const port = await freePort();
    const env = fleetEnv(`redis://127.0.0.1:${port}`);
    const commands = [
      ['jobs:list'],
      ['apps:status', 'nowhere'],
      ['deploy', 'nowhere', '--image', 'nginx:1.27', '--wait'],
    ];
    const results = await Promise.all(commands.map((args) => runCli(args, env, 30_000)));
    for (const [i, result] of results.entries()) {
      const shown = `${commands[i]!.join(' ')}\n${result.stderr}`;
      expect(result.code, shown).toBe(1);
      const lines = result.stderr.split('\n').filter((l) => l.trim() !== '');
      expect(lines, shown).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `cannot reach Redis at redis://127\\.0\\.0\\.1:${port} \\(connection refused\\).*REDIS_URL`,
        ),
      );
      expect(result.stdout).toBe('');
    }
  });

  it('a worker started without Redis logs JSON lines only, and few of them', async () => {
    const port = await freePort();
    const worker = startProcess(WORKER, ['1'], fleetEnv(`redis://127.0.0.1:${port}`));
    await worker.waitForLine(/unreachable/);
    const warnings = () => jsonLines(worker).filter((l) => l.level >= 40).length;
    // A 4 s window of reconnect attempts: the warnings stay few all along (back-off), not only at the end.
    await stays(() => warnings() <= 5, 4_000, 'at most 5 warning lines', { intervalMs: 100 });
    worker.kill('SIGKILL');
    await worker.exited;
    const lines = jsonLines(worker);
    expect(worker.output()).not.toMatch(/Unhandled error event/);
    expect(lines.filter((l) => l.level >= 40).length, worker.output()).toBeLessThanOrEqual(5);
  });
});

describe('start-up errors', () => {
  let blocker: Server;
  let port: number;
  let fleet: TestFleet;

  beforeAll(async () => {
    fleet = await startTestFleet();
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    port = (blocker.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    await fleet.stop();
  });

  it('a worker whose metrics port is taken exits 1 at once, naming the port and the setting', async () => {
    const worker = startProcess(WORKER, ['1'], { ...fleet.env, LONGSHORE_METRICS_PORT: String(port) });
    const { code } = await exitOf(worker);
    expect(code, worker.output()).toBe(1);
    const lines = jsonLines(worker);
    const fatal = lines.find((l) => l.level === 60);
    expect(fatal?.msg, worker.output()).toMatch(
      new RegExp(`127\\.0\\.0\\.1:${port}.*in use.*LONGSHORE_METRICS_PORT`),
    );
  });

  it('longshore dev whose metrics port is taken exits 1 at once with one line naming it', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'longshore-dev-'));
    try {
      const result = await runCli(
        ['dev', '--state-dir', stateDir],
        {
          // Embedded defaults (private Redis, simulated cluster, a made-up secret), taken port.
          REDIS_URL: '',
          KUBECONFIG: '',
          LONGSHORE_SECRET: '',
          LONGSHORE_METRICS_HOST: '127.0.0.1',
          LONGSHORE_METRICS_PORT: String(port),
        },
        30_000,
      );
      expect(result.code, result.stderr).toBe(1);
      const lines = result.stderr.split('\n').filter((l) => l.trim() !== '');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}.*in use.*LONGSHORE_METRICS_PORT`));
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it('kube-sim on a taken port exits 1 with one line naming the port and --port', async () => {
    const result = await runCli(['sim', '--port', String(port)], {}, 30_000);
    expect(result.code, result.stderr).toBe(1);
    const lines = result.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}.*in use.*--port`));
  });
});
