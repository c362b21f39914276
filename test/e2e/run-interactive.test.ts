/**
 * `run -it` end to end in a real terminal: the CLI runs inside tmux (a pty), its keystrokes go
 * through Redis to the worker, which attaches to the run's container in kube-sim; the screen shows
 * the shell's answers, the CLI exits with the container's exit code, and the terminal is back in
 * cooked mode afterwards (`stty -a` in the same pane). With the worker SIGKILLed mid-session the
 * CLI ends within seconds with a clear message, the terminal restored too. Without a TTY `-it`
 * runs without one; a CLI that goes silent is detached from after the idle timeout.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobClient } from '../../src/jobs/client.ts';
import { keys } from '../../src/jobs/keys.ts';
import { addTty, ttyInFields } from '../../src/jobs/tty-stream.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { CLI } from '../helpers/processes.ts';
import { until, within } from '../helpers/wait.ts';

let fleet: DeployFleet;
const SOCKET = `longshore-it-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
  await fleet.deployWithRegistry(
    'shop',
    'registry.example.com/shop:1',
    'web: bundle exec puma\n',
    JSON.stringify({ formation: { web: { quantity: 1 } } }),
  );
  await fleet.ok(['config:set', 'shop', 'GREETING=hello', '--wait']);
});

afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // no server left
  }
  await fleet?.stop();
});

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** Starts `longshore run shop -it -- sh` in a 120x30 tmux session; its exit status and `stty -a` land in files. */
function startSession(name: string): { exitFile: string; sttyFile: string; screen: () => string } {
  const exitFile = join(fleet.dir, `${name}.exit`);
  const sttyFile = join(fleet.dir, `${name}.stty`);
  const exports = Object.entries(fleet.env)
    .map(([k, v]) => `export ${k}=${quote(v)}`)
    .join('\n');
  const script = fleet.file(
    `${name}.sh`,
    `${exports}\n${quote(process.execPath)} ${quote(CLI)} run shop -it -- sh\n` +
      `echo EXIT=$? > ${quote(exitFile)}\nstty -a > ${quote(sttyFile)}\nread _\n`,
  );
  tmux('new-session', '-d', '-s', name, '-x', '120', '-y', '30', `sh ${quote(script)}`);
  return { exitFile, sttyFile, screen: () => tmux('capture-pane', '-p', '-t', name) };
}

/** The shell's `# ` prompt on the screen; the screen and the worker's output in the error if not. */
async function prompt(name: string, screen: () => string): Promise<void> {
  // The shell printed its first prompt before the worker attached (attach shows output from then
  // on, as `kubectl run -it` warns): Enter asks for another, as a person would.
  let asked = 0;
  try {
    await until(
      () => {
        if (/^#( |$)/m.test(screen())) return true;
        if (Date.now() - asked > 1_000) {
          asked = Date.now();
          tmux('send-keys', '-t', name, 'Enter');
        }
        return false;
      },
      'the shell prompt',
      { timeoutMs: 30_000 },
    );
  } catch (err) {
    throw new Error(
      `${(err as Error).message}\nscreen:\n${screen()}\nworker:\n${fleet.workers.map((w) => w.output()).join('\n')}`,
    );
  }
}

const cooked = (stty: string) => {
  expect(stty).toMatch(/(^|\s)icanon(\s|$)/);
  expect(stty).toMatch(/(^|\s)echo(\s|$)/);
  expect(stty).not.toMatch(/-icanon/);
};

const exitStatus = (file: string) =>
  until(() => (existsSync(file) && readFileSync(file, 'utf8').trim()) || undefined, 'the CLI to exit', {
    timeoutMs: 20_000,
  });

describe('run -it in a real terminal', () => {
  it('types into the container, shows its answers, passes resizes, exits 4 and leaves the terminal cooked', async () => {
    const s = startSession('it1');
    await prompt('it1', s.screen);
    tmux('send-keys', '-t', 'it1', '-l', 'echo $GREETING');
    tmux('send-keys', '-t', 'it1', 'Enter');
    await until(() => /^hello\s*$/m.test(s.screen()), 'the value on the screen', { timeoutMs: 10_000 });
    // The terminal's size reached the container at start, and a resize follows (SIGWINCH → CLI →
    // Redis → worker → attach's resize channel).
    tmux('send-keys', '-t', 'it1', '-l', 'stty size');
    tmux('send-keys', '-t', 'it1', 'Enter');
    await until(() => /^30 120\s*$/m.test(s.screen()), 'stty size 30 120', { timeoutMs: 10_000 });
    tmux('resize-window', '-t', 'it1', '-x', '100', '-y', '25');
    await until(
      () => {
        if (/^25 100\s*$/m.test(s.screen())) return true;
        tmux('send-keys', '-t', 'it1', '-l', 'stty size');
        tmux('send-keys', '-t', 'it1', 'Enter');
        return false;
      },
      'stty size 25 100 after the resize',
      { timeoutMs: 10_000, intervalMs: 500 },
    );
    tmux('send-keys', '-t', 'it1', '-l', 'exit 4');
    tmux('send-keys', '-t', 'it1', 'Enter');
    expect(await exitStatus(s.exitFile)).toBe('EXIT=4');
    const stty = await until(
      () => (existsSync(s.sttyFile) && readFileSync(s.sttyFile, 'utf8')) || undefined,
      'stty -a',
    );
    cooked(stty);
  }, 90_000);

  it('a worker SIGKILLed mid-session: the CLI ends within seconds saying so, terminal cooked', async () => {
    const s = startSession('it2');
    await prompt('it2', s.screen);
    const [worker] = fleet.workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
    const killedAt = Date.now();
    worker!.kill('SIGKILL');
    expect(await exitStatus(s.exitFile)).toBe('EXIT=1');
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    expect(s.screen()).toMatch(/lost the worker/);
    const stty = await until(
      () => (existsSync(s.sttyFile) && readFileSync(s.sttyFile, 'utf8')) || undefined,
      'stty -a',
    );
    cooked(stty);
  }, 90_000);

  it('stdin not a TTY: says so on stderr and runs without one, with the exit code', async () => {
    if (!fleet.workers.some((w) => w.child.exitCode === null && w.child.signalCode === null))
      await fleet.startWorker();
    const { code, stdout, stderr } = await fleet.cli([
      'run',
      'shop',
      '-it',
      '--',
      'sh',
      '-c',
      'echo hi; exit 2',
    ]);
    expect(stderr).toContain('the input device is not a TTY: running without one');
    expect(stdout).toBe('hi\n');
    expect(code).toBe(2);
  }, 60_000);

  it('-i without -t and -it with --detach are refused (exit 2)', async () => {
    expect((await fleet.cli(['run', 'shop', '-i', '--', 'sh'])).code).toBe(2);
    expect((await fleet.cli(['run', 'shop', '-it', '--detach', '--', 'sh'])).code).toBe(2);
  }, 60_000);

  it('a CLI that goes silent: the worker detaches after the idle timeout, the shell ends, the job says so', async () => {
    // Only a worker with a short idle timeout takes the job.
    for (const w of fleet.workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null)) {
      w.kill('SIGTERM');
      await within(w.exited, 30_000, 'a worker to stop');
    }
    await fleet.startWorker({ LONGSHORE_RUN_IDLE_TIMEOUT_MS: '2000' });
    const redis = new Redis(fleet.redis.url, { maxRetriesPerRequest: null });
    try {
      const client = new JobClient(redis, { attempts: 1, backoffMs: 1000 });
      const job = await client.enqueue(
        'run',
        { app: 'shop', command: ['sh'], env: {}, tty: true, detach: false },
        'test',
      );
      // One keystroke, then nothing: no heartbeat, as a CLI SIGKILLed would leave it.
      await addTty(redis, keys.ttyIn(job.id), ttyInFields({ kind: 'data', data: Buffer.from('\r') }));
      const done = await until(
        async () => {
          // State first, then the hash: read the other way round, a job that completes between
          // the two reads is seen as completed with the returnvalue of its active snapshot (null).
          if ((await client.queue.getJobState(job.id)) !== 'completed') return undefined;
          return Job.fromId(client.queue, job.id);
        },
        'the job to complete after the idle timeout',
        { timeoutMs: 30_000 },
      );
      const result = done.returnvalue as { summary: string; exitCode: number };
      expect(result.summary).toMatch(/after the CLI went away \(no input or heartbeat for 2 s\)/);
      expect(result.exitCode).toBe(0);
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});
