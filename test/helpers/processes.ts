/**
 * Real child processes for integration tests: worker processes, producer processes and the CLI,
 * run from the TypeScript sources through tsx exactly as `npx longshore` runs them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { until } from './wait.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = `${ROOT}bin/longshore.js`;

export const TEST_SECRET = 'test-fleet-passphrase-0123456789-abcdefghij';

export interface Proc {
  readonly child: ChildProcess;
  readonly pid: number;
  /** stdout and stderr lines so far. */
  readonly lines: string[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  kill(signal?: NodeJS.Signals): void;
  output(): string;
}

const running = new Set<ChildProcess>();

/**
 * Starts `node [--import tsx] file args…` with the given environment added to the test's own;
 * `node` is the test's own unless given (the image test runs the image's Node release).
 */
export function startProcess(
  file: string,
  args: string[],
  env: Record<string, string>,
  node: string = process.execPath,
): Proc {
  const useTsx = file.endsWith('.ts');
  const child = spawn(node, [...(useTsx ? ['--import', 'tsx'] : []), file, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const lines: string[] = [];
  const collect = (stream: NodeJS.ReadableStream | null) => {
    let buffer = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      lines.push(...parts);
    });
    stream?.on('end', () => {
      if (buffer) lines.push(buffer);
    });
  };
  collect(child.stdout);
  collect(child.stderr);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  return {
    child,
    pid: child.pid!,
    lines,
    exited,
    waitForLine: (pattern, timeoutMs = 30_000) =>
      until(
        () => lines.find((l) => pattern.test(l)),
        `a line matching ${pattern} from ${file}\n${lines.slice(-20).join('\n')}`,
        {
          timeoutMs,
        },
      ),
    kill: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    output: () => lines.join('\n'),
  };
}

/** Runs the CLI to completion. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
  /** Written to the CLI's stdin (then closed); without it stdin is empty. */
  stdin?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (stdin !== undefined) child.stdin?.end(stdin);
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  running.delete(child);
  return { code, stdout, stderr };
}

/** Kills every child a test left running (afterEach/afterAll). */
export async function killAll(): Promise<void> {
  const children = [...running];
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('close', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** Environment for fleet processes in tests: fast stall detection, quick retries, any free metrics port. */
export function fleetEnv(redisUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    REDIS_URL: redisUrl,
    LONGSHORE_SECRET: TEST_SECRET,
    LONGSHORE_METRICS_PORT: '0',
    LONGSHORE_METRICS_HOST: '127.0.0.1',
    LONGSHORE_LOG_LEVEL: 'info',
    LONGSHORE_LOCK_DURATION_MS: '3000',
    LONGSHORE_STALLED_INTERVAL_MS: '1000',
    LONGSHORE_BACKOFF_MS: '50',
    LONGSHORE_SHUTDOWN_DEADLINE_MS: '10000',
    ...extra,
  };
}
