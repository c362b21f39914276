/**
 * One `longshore dev` per state directory: `.longshore/dev.lock`, created exclusively (O_EXCL) and
 * holding the owner's PID. A second start while the owner runs refuses and names the PID; a lock
 * whose PID no longer runs (the owner was killed with -9) is taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { LongshoreError } from '../core/errors.ts';
import { commandLine, isRunning } from './process-info.ts';

/** Another `longshore dev` is running on the same state directory. CLI exit code 1. */
export class DevLockedError extends LongshoreError {
  readonly code = 'DEV_LOCKED';
  constructor(
    readonly pid: number,
    shownDir: string,
  ) {
    super(`another longshore dev (PID ${pid}) is using ${shownDir}`);
  }
}

export interface DevLock {
  readonly path: string;
  /** Removes the lock file if it is still ours. */
  release(): void;
}

/**
 * Takes the lock at `path` (a file in the state directory) or throws DevLockedError.
 * `shownDir` is the state directory as the user should read it (`.longshore/`).
 */
export function acquireDevLock(path: string, shownDir: string): DevLock {
  // Two attempts: the second after removing a stale lock. If another start took it over in between,
  // its exclusive create wins and this one refuses with its PID.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      const release = () => {
        if (holderOf(path) === process.pid) rmSync(path, { force: true });
      };
      // However the process ends (short of SIGKILL), the lock goes with it.
      process.once('exit', release);
      return { path, release };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = holderOf(path);
    if (holder !== undefined && holder !== process.pid && isLongshoreProcess(holder))
      throw new DevLockedError(holder, shownDir);
    // Stale: its owner is gone (or the file is torn). Remove it only if it still says the same.
    if (holderOf(path) === holder) rmSync(path, { force: true });
  }
  const holder = holderOf(path);
  throw new DevLockedError(holder ?? 0, shownDir);
}

function holderOf(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A running PID that is a longshore process. After a reboot or in a new container the PID in a
 * stale lock may belong to something else; its command line tells (when /proc can say).
 */
function isLongshoreProcess(pid: number): boolean {
  if (!isRunning(pid)) return false;
  const argv = commandLine(pid);
  return argv === undefined || argv.some((arg) => arg.includes('longshore') || arg === 'dev');
}
