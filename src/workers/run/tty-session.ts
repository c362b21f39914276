/**
 * The worker's side of an interactive run (`run -it`, docs/apps.md "run"): attaches to the run's
 * container through the Kubernetes attach API (client-node `Attach`, WebSocket) and relays both
 * ways through the run's tty streams (src/jobs/tty-stream.ts): container output → `ttyOut`,
 * `ttyIn` keystrokes → the container's stdin, `ttyIn` sizes → the resize channel. Ends when the
 * attach session ends (the container exited), the CLI detaches or goes silent for the idle
 * timeout, or `signal` aborts; ending it closes the session, and with `stdinOnce` the container's
 * stdin, so its shell ends. The exit code is not here: attach never carries it (read the Pod).
 */
import { PassThrough } from 'node:stream';
import { setTimeout as pause } from 'node:timers/promises';
import * as k8s from '@kubernetes/client-node';
import type { Redis } from 'ioredis';
import { keys } from '../../jobs/keys.ts';
import {
  addTty,
  parseTtyIn,
  readTty,
  TTY_HEARTBEAT_MS,
  TTY_READ_BLOCK_MS,
  ttyOutFields,
} from '../../jobs/tty-stream.ts';

/** Why the session ended. */
export type TtySessionEnd = { kind: 'closed' } | { kind: 'detached'; reason: string } | { kind: 'aborted' };

interface WsLike {
  send(data: Buffer): void;
  close(): void;
  readyState: number;
  once(event: 'close', cb: () => void): void;
}

export interface TtySessionOptions {
  kc: k8s.KubeConfig;
  redis: Redis;
  jobId: string;
  namespace: string;
  pod: string;
  container: string;
  signal: AbortSignal;
  /** Whether the container still runs (attach refused before it does: retried while it is not yet). */
  stillStarting: () => Promise<boolean>;
  /** Detach when the CLI wrote nothing this long (FleetConfig.runIdleTimeoutMs). */
  idleTimeoutMs: number;
}

const RESIZE_CHANNEL = 4;

export async function runTtySession(o: TtySessionOptions): Promise<TtySessionEnd> {
  const outKey = keys.ttyOut(o.jobId);
  const inKey = keys.ttyIn(o.jobId);
  const idleMs = o.idleTimeoutMs;
  const blocking = o.redis.duplicate();
  let done = false;
  let lastIn = Date.now();
  // Output in order: one chain of XADDs.
  let writes: Promise<unknown> = Promise.resolve();
  const emit = (fields: string[]) => {
    writes = writes.then(() => addTty(o.redis, outKey, fields)).catch(() => undefined);
  };
  try {
    // Attach; a container not running yet answers with a failure status, so retry while it starts.
    let ws: WsLike | undefined;
    let stdin: PassThrough | undefined;
    let closed!: Promise<void>;
    for (let attempt = 0; !ws; attempt++) {
      if (o.signal.aborted) return { kind: 'aborted' };
      const stdout = new PassThrough();
      stdout.on('data', (chunk: Buffer) => emit(ttyOutFields({ kind: 'data', data: chunk })));
      const input = new PassThrough();
      const conn = (await new k8s.Attach(o.kc).attach(
        o.namespace,
        o.pod,
        o.container,
        stdout,
        null,
        input,
        true,
      )) as unknown as WsLike;
      const connClosed = new Promise<void>((resolve) => {
        if (conn.readyState >= 2) resolve();
        else conn.once('close', () => resolve());
      });
      // A container not running yet refuses right after the upgrade (an InternalError status) and
      // the socket closes: retried while the Pod says it starts or runs.
      const early = await Promise.race([connClosed.then(() => true), pause(150).then(() => false)]);
      if (early) {
        if (attempt < 50 && (await o.stillStarting())) {
          await pause(100);
          continue;
        }
        // Ended before it could be attached to: its exit code is on the Pod.
        return { kind: 'closed' };
      }
      ws = conn;
      stdin = input;
      closed = connClosed;
    }
    const session = ws;
    const input = stdin!;
    // Input: its own connection, blocked in XREAD.
    const relayIn = async (): Promise<TtySessionEnd> => {
      let lastId = '0-0';
      while (!done) {
        let got: { lastId: string; entries: string[][] };
        try {
          got = await readTty(blocking, inKey, lastId, TTY_READ_BLOCK_MS);
        } catch {
          if (done) break;
          await pause(200);
          got = { lastId, entries: [] };
        }
        lastId = got.lastId;
        for (const fields of got.entries) {
          lastIn = Date.now();
          const entry = parseTtyIn(fields);
          if (!entry) continue;
          if (entry.kind === 'data') input.write(entry.data);
          else if (entry.kind === 'resize') {
            if (session.readyState === 1)
              session.send(
                Buffer.concat([
                  Buffer.from([RESIZE_CHANNEL]),
                  Buffer.from(JSON.stringify({ Width: entry.width, Height: entry.height })),
                ]),
              );
          } else if (entry.kind === 'detach') return { kind: 'detached', reason: `the CLI ${entry.reason}` };
        }
        if (Date.now() - lastIn > idleMs)
          return {
            kind: 'detached',
            reason: `the CLI went away (no input or heartbeat for ${Math.round(idleMs / 1000)} s)`,
          };
      }
      return { kind: 'closed' };
    };
    const aborted = new Promise<TtySessionEnd>((resolve) => {
      if (o.signal.aborted) resolve({ kind: 'aborted' });
      else o.signal.addEventListener('abort', () => resolve({ kind: 'aborted' }), { once: true });
    });
    const end = await Promise.race([
      closed.then((): TtySessionEnd => ({ kind: 'closed' })),
      relayIn(),
      aborted,
    ]);
    done = true;
    if (session.readyState <= 1) {
      // Ends the session: the container's stdin closes (stdinOnce) and its shell ends.
      input.end();
      session.close();
    }
    return end;
  } finally {
    done = true;
    await writes;
    blocking.disconnect();
  }
}

/** Writes a worker heartbeat to the output stream every TTY_HEARTBEAT_MS until stopped. */
export function ttyHeartbeat(redis: Redis, jobId: string): () => void {
  const key = keys.ttyOut(jobId);
  const beat = () => addTty(redis, key, ttyOutFields({ kind: 'beat' })).catch(() => undefined);
  void beat();
  const timer = setInterval(beat, TTY_HEARTBEAT_MS);
  return () => clearInterval(timer);
}

/** Writes the session's last output entry: why it ended and the exit code, if any. */
export async function endTtySession(redis: Redis, jobId: string, reason: string, exitCode?: number) {
  await addTty(
    redis,
    keys.ttyOut(jobId),
    ttyOutFields({ kind: 'end', reason, ...(exitCode === undefined ? {} : { exitCode }) }),
  );
}
