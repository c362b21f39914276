/**
 * What `longshore dev` needs to know about another process by its PID: is it running, what is its
 * command line, which directory is it in. Linux answers from /proc; elsewhere only "running" is
 * known (signal 0), and the other answers are undefined.
 */
import { readFileSync, readlinkSync } from 'node:fs';

/**
 * True while `pid` runs. A zombie (exited, not yet reaped: common under a container's PID 1 that
 * reaps nothing) does not count: it holds no port, no file and no lock.
 */
export function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = readProc(pid, 'stat');
  if (stat === undefined) return true;
  // The state letter follows the parenthesised command name, which may itself contain ") ".
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/** The process's arguments (argv), or undefined when /proc cannot tell. */
export function commandLine(pid: number): string[] | undefined {
  const raw = readProc(pid, 'cmdline');
  if (raw === undefined) return undefined;
  return raw.split('\0').filter((part) => part !== '');
}

/** The process's short command name (`comm`, e.g. `redis-server`), or undefined when /proc cannot tell. */
export function commandName(pid: number): string | undefined {
  return readProc(pid, 'comm')?.trim();
}

/** The process's working directory, or undefined when /proc cannot tell (another user, not Linux). */
export function workingDirectory(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}
