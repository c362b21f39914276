/**
 * The two Redis streams of an interactive run (`run -it`, docs/apps.md "run"), next to the job's
 * log stream: `ttyOut` carries the terminal's output from the worker to the CLI, `ttyIn` the
 * keystrokes and terminal sizes from the CLI to the worker. Both are bounded (XADD MAXLEN ~) and
 * expire LOG_STREAM_TTL_SECONDS after their last write. Each side writes a heartbeat entry every
 * TTY_HEARTBEAT_MS; the CLI gives up on a worker silent for TTY_WORKER_TIMEOUT_MS, the worker
 * detaches from a CLI silent for LONGSHORE_RUN_IDLE_TIMEOUT_MS (src/core/env.ts; default 30 s),
 * which closes the container's stdin.
 */
import type { Redis } from 'ioredis';
import { LOG_STREAM_TTL_SECONDS } from './log-stream.ts';

/** Entries kept per stream. */
export const TTY_STREAM_MAXLEN = 10_000;
/** Both sides write a heartbeat entry this often. */
export const TTY_HEARTBEAT_MS = 1_000;
/** The CLI ends the session when the worker wrote nothing for this long. */
export const TTY_WORKER_TIMEOUT_MS = 5_000;
/** Longest XREAD BLOCK on either side. */
export const TTY_READ_BLOCK_MS = 1_000;

export type TtyOut =
  | { kind: 'data'; data: Buffer }
  | { kind: 'beat' }
  | { kind: 'end'; reason: string; exitCode?: number };

export type TtyIn =
  | { kind: 'data'; data: Buffer }
  | { kind: 'resize'; width: number; height: number }
  | { kind: 'beat' }
  | { kind: 'detach'; reason: string };

function fieldMap(fields: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
  return map;
}

export function ttyOutFields(entry: TtyOut): string[] {
  if (entry.kind === 'data') return ['o', entry.data.toString('base64')];
  if (entry.kind === 'beat') return ['hb', '1'];
  return ['end', entry.reason, ...(entry.exitCode === undefined ? [] : ['code', String(entry.exitCode)])];
}

export function parseTtyOut(fields: string[]): TtyOut | undefined {
  const map = fieldMap(fields);
  const o = map.get('o');
  if (o !== undefined) return { kind: 'data', data: Buffer.from(o, 'base64') };
  const end = map.get('end');
  if (end !== undefined) {
    const code = map.get('code');
    return { kind: 'end', reason: end, ...(code === undefined ? {} : { exitCode: Number(code) }) };
  }
  if (map.has('hb')) return { kind: 'beat' };
  return undefined;
}

export function ttyInFields(entry: TtyIn): string[] {
  if (entry.kind === 'data') return ['i', entry.data.toString('base64')];
  if (entry.kind === 'resize') return ['r', JSON.stringify({ width: entry.width, height: entry.height })];
  if (entry.kind === 'beat') return ['hb', '1'];
  return ['x', entry.reason];
}

export function parseTtyIn(fields: string[]): TtyIn | undefined {
  const map = fieldMap(fields);
  const i = map.get('i');
  if (i !== undefined) return { kind: 'data', data: Buffer.from(i, 'base64') };
  const r = map.get('r');
  if (r !== undefined) {
    try {
      const { width, height } = JSON.parse(r) as { width?: unknown; height?: unknown };
      if (typeof width === 'number' && typeof height === 'number') return { kind: 'resize', width, height };
    } catch {
      return undefined;
    }
    return undefined;
  }
  const x = map.get('x');
  if (x !== undefined) return { kind: 'detach', reason: x };
  if (map.has('hb')) return { kind: 'beat' };
  return undefined;
}

/** XADD one entry to a tty stream, bounded and expiring. */
export async function addTty(redis: Redis, key: string, fields: string[]): Promise<string> {
  const [[err, id]] = (await redis
    .multi()
    .xadd(key, 'MAXLEN', '~', TTY_STREAM_MAXLEN, '*', ...fields)
    .expire(key, LOG_STREAM_TTL_SECONDS)
    .exec()) as [[Error | null, string]];
  if (err) throw err;
  return id;
}

/**
 * XREAD BLOCK on `blocking` (a connection of its own: a blocked one serves nothing else) from
 * after `lastId`; returns the entries and the new last id.
 */
export async function readTty(
  blocking: Redis,
  key: string,
  lastId: string,
  blockMs: number,
): Promise<{ lastId: string; entries: string[][] }> {
  const res = (await blocking.xread('COUNT', 512, 'BLOCK', blockMs, 'STREAMS', key, lastId)) as
    | [string, [string, string[]][]][]
    | null;
  if (!res) return { lastId, entries: [] };
  const items = res[0]?.[1] ?? [];
  return { lastId: items.at(-1)?.[0] ?? lastId, entries: items.map(([, f]) => f) };
}
