/**
 * The PID file of the private redis-server `longshore dev` starts (`.longshore/redis.pid`): its PID,
 * port and data directory, written the moment it is spawned. A `longshore dev` killed with -9
 * cannot stop its redis-server (redis-server has no way to notice its parent is gone), so the next
 * start reads this file and stops that orphan cleanly before starting its own: two redis-servers
 * appending to one AOF lose the jobs written to the first on replay.
 */
import { readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { InfrastructureError } from '../core/errors.ts';
import { commandLine, commandName, isRunning, workingDirectory } from './process-info.ts';

export interface RedisPidRecord {
  pid: number;
  port: number;
  dir: string;
}

export function writeRedisPidFile(path: string, record: RedisPidRecord): void {
  writeFileSync(path, `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

export function readRedisPidFile(path: string): RedisPidRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<RedisPidRecord>;
    if (typeof parsed.pid !== 'number' || typeof parsed.port !== 'number' || typeof parsed.dir !== 'string')
      return undefined;
    return parsed as RedisPidRecord;
  } catch {
    return undefined;
  }
}

/** Removes the PID file when it still names `pid` (a newer redis-server may have written it since). */
export function removeRedisPidFile(path: string, pid: number | undefined): void {
  if (readRedisPidFile(path)?.pid === pid) rmSync(path, { force: true });
}

/**
 * Whether `pid` is a running redis-server serving `dir`. redis-server rewrites its command line
 * (`redis-server 127.0.0.1:6390`) but changes into its `--dir`, so /proc/PID/cwd names the data
 * directory. Without /proc (not Linux) a running PID from our own PID file is trusted.
 */
export function isRedisServerOn(pid: number, dir: string): boolean {
  if (!isRunning(pid)) return false;
  const argv = commandLine(pid);
  const cwd = workingDirectory(pid);
  if (argv === undefined || cwd === undefined) return process.platform !== 'linux';
  const program = basename(argv[0]?.split(' ')[0] ?? '');
  return program.startsWith('redis-server') && sameDirectory(cwd, dir);
}

/**
 * Every running redis-server whose data directory is `dir`: the one in the PID file and, on Linux,
 * any other /proc shows there (a PID file lost or overwritten must not let two run on one AOF).
 */
export function redisServersOn(dir: string, pidFile?: string): number[] {
  const found = new Set<number>();
  const recorded = pidFile ? readRedisPidFile(pidFile) : undefined;
  if (recorded && isRedisServerOn(recorded.pid, dir)) found.add(recorded.pid);
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    // not Linux: the PID file is all there is
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    if (commandName(pid)?.startsWith('redis-server') && isRedisServerOn(pid, dir)) found.add(pid);
  }
  return [...found];
}

/**
 * Stops every redis-server left running on `dir` by an earlier `longshore dev` that died without
 * stopping it. SIGTERM makes redis-server do what SHUTDOWN does: write and fsync the AOF, then
 * exit, so the next redis-server replays every job the orphan accepted. Returns the PIDs stopped.
 */
export async function stopOrphanedRedis(
  dir: string,
  pidFile: string,
  options: { timeoutMs?: number; onStop?: (pid: number) => void } = {},
): Promise<number[]> {
  const orphans = redisServersOn(dir, pidFile);
  for (const pid of orphans) {
    options.onStop?.(pid);
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone already
    }
  }
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (const pid of orphans) {
    while (isRunning(pid)) {
      if (Date.now() > deadline)
        throw new InfrastructureError(
          `the redis-server left running by an earlier longshore dev (PID ${pid}, data in ${dir}) did not stop; stop it (kill ${pid}) and start again`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  rmSync(pidFile, { force: true });
  return orphans;
}

function sameDirectory(a: string, b: string): boolean {
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  };
  return real(a) === real(b);
}
