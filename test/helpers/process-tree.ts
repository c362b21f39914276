/** Which processes exist, from /proc (Linux): a process's descendants, redis-servers by data directory. */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';

interface ProcStat {
  pid: number;
  ppid: number;
  state: string;
  comm: string;
}

function stat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const [state, ppid] = text.slice(close + 2).split(' ');
    return { pid, ppid: Number(ppid), state: state!, comm: text.slice(text.indexOf('(') + 1, close) };
  } catch {
    return undefined;
  }
}

function allProcesses(): ProcStat[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map((e) => stat(Number(e)))
    .filter((s): s is ProcStat => s !== undefined);
}

/** Running, not a zombie (a container's PID 1 may never reap orphans). */
export function isAlive(pid: number): boolean {
  const s = stat(pid);
  return s !== undefined && s.state !== 'Z' && s.state !== 'X';
}

/** Every live process below `pid`, with its command name. */
export function descendants(pid: number): { pid: number; comm: string }[] {
  const all = allProcesses().filter((p) => p.state !== 'Z');
  const out: { pid: number; comm: string }[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const p of all)
      if (p.ppid === parent) {
        out.push({ pid: p.pid, comm: p.comm });
        queue.push(p.pid);
      }
  }
  return out;
}

/** PIDs of live redis-servers whose data directory (their working directory) is `dir`. */
export function redisServersIn(dir: string): number[] {
  let want: string;
  try {
    want = realpathSync(dir);
  } catch {
    return [];
  }
  return allProcesses()
    .filter((p) => p.comm.startsWith('redis-server') && p.state !== 'Z')
    .filter((p) => {
      try {
        return readlinkSync(`/proc/${p.pid}/cwd`) === want;
      } catch {
        return false;
      }
    })
    .map((p) => p.pid);
}
