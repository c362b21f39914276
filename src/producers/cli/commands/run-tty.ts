/**
 * The CLI's side of `run -it` (docs/apps.md "run"): the local terminal in raw mode, its bytes and
 * sizes XADDed to the run's input stream, the run's output stream (XREAD BLOCK on a connection of
 * its own) written to stdout as it comes, and the container's exit code returned. Every way out —
 * the container's end, the job failing, a worker silent for TTY_WORKER_TIMEOUT_MS, lost Redis,
 * SIGTERM/SIGHUP, an exception — goes through one `finally` that restores the terminal (and an
 * `exit` handler, for a path that skips it).
 */
import { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobClient } from '../../../jobs/client.ts';
import { keys } from '../../../jobs/keys.ts';
import {
  addTty,
  parseTtyOut,
  readTty,
  TTY_HEARTBEAT_MS,
  TTY_READ_BLOCK_MS,
  TTY_WORKER_TIMEOUT_MS,
  ttyInFields,
} from '../../../jobs/tty-stream.ts';

export interface TtyStreams {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

/** How the session ended: the exit code to exit with, and a line for stderr (none for a normal end). */
export interface TtyOutcome {
  exitCode: number;
  message?: string;
}

export async function runTtyClient(
  client: JobClient,
  redis: Redis,
  jobId: string,
  io: TtyStreams = { stdin: process.stdin, stdout: process.stdout },
): Promise<TtyOutcome> {
  const inKey = keys.ttyIn(jobId);
  const outKey = keys.ttyOut(jobId);
  const blocking = redis.duplicate();
  const { stdin, stdout } = io;
  const wasRaw = stdin.isTTY ? stdin.isRaw : false;
  const restore = () => {
    if (stdin.isTTY) stdin.setRawMode(wasRaw);
  };
  process.on('exit', restore);
  let stop: TtyOutcome | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    stop ??= { exitCode: sig === 'SIGTERM' ? 143 : 129, message: `${sig}: left the session` };
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  // Input in order: one chain of XADDs on the shared (non-blocking) connection.
  let writes: Promise<unknown> = Promise.resolve();
  const send = (fields: string[]) => {
    writes = writes.then(() => addTty(redis, inKey, fields)).catch(() => undefined);
  };
  const sendSize = () => {
    if (stdout.columns && stdout.rows)
      send(ttyInFields({ kind: 'resize', width: stdout.columns, height: stdout.rows }));
  };
  const onData = (data: Buffer) => send(ttyInFields({ kind: 'data', data }));
  const beat = setInterval(() => send(ttyInFields({ kind: 'beat' })), TTY_HEARTBEAT_MS);
  try {
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.on('data', onData);
    stdin.resume();
    stdout.on('resize', sendSize);
    sendSize();
    send(ttyInFields({ kind: 'beat' }));

    let lastId = '0-0';
    let lastBeat: number | undefined;
    let lastOk = Date.now();
    let lastCheck = 0;
    for (;;) {
      if (stop) {
        send(ttyInFields({ kind: 'detach', reason: stop.message ?? 'left' }));
        await writes;
        return stop;
      }
      let got: { lastId: string; entries: string[][] } = { lastId, entries: [] };
      try {
        got = await readTty(blocking, outKey, lastId, TTY_READ_BLOCK_MS);
        lastOk = Date.now();
      } catch (err) {
        if (Date.now() - lastOk > TTY_WORKER_TIMEOUT_MS)
          return {
            exitCode: 1,
            message: `lost Redis: ${(err as Error).message}; the run may go on until its idle timeout ends it`,
          };
        await new Promise((r) => setTimeout(r, 200));
      }
      lastId = got.lastId;
      for (const fields of got.entries) {
        const entry = parseTtyOut(fields);
        if (!entry) continue;
        lastBeat = Date.now();
        if (entry.kind === 'data') stdout.write(entry.data);
        else if (entry.kind === 'end')
          return entry.exitCode === undefined
            ? { exitCode: 1, message: `error: ${entry.reason}` }
            : { exitCode: entry.exitCode };
      }
      if (lastBeat !== undefined && Date.now() - lastBeat > TTY_WORKER_TIMEOUT_MS)
        return {
          exitCode: 1,
          message: `lost the worker running job ${jobId}: no heartbeat for ${TTY_WORKER_TIMEOUT_MS / 1000} s; the session is over`,
        };
      if (Date.now() - lastCheck >= TTY_HEARTBEAT_MS) {
        lastCheck = Date.now();
        const job = await Job.fromId(client.queueFor(jobId), jobId).catch(() => undefined);
        const state = job ? await job.getState().catch(() => 'unknown') : 'unknown';
        if (state === 'failed')
          return { exitCode: 1, message: `error: ${job?.failedReason ?? 'the run failed'}` };
        if (state === 'completed') {
          const result = job?.returnvalue as { exitCode?: unknown; summary?: string } | undefined;
          if (typeof result?.exitCode === 'number') return { exitCode: result.exitCode };
          return { exitCode: 1, message: result?.summary ?? 'the run ended' };
        }
      }
    }
  } finally {
    clearInterval(beat);
    stdin.off('data', onData);
    stdout.off('resize', sendSize);
    restore();
    stdin.pause();
    process.off('exit', restore);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    blocking.disconnect();
  }
}
