/**
 * A run's output on its way to Redis: the pod's log read with `timestamps=true` (client-node's
 * `Log`, following or not), each complete line passed through the relay cursor (log-cursor.ts) and
 * the new ones appended to the job's stream together with the cursor (stream-writer.ts), in the
 * order they came (one promise chain).
 */
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import * as k8s from '@kubernetes/client-node';
import { splitLines } from '../logs/pod-numbering.ts';
import type { LogStreamWriter } from '../logs/stream-writer.ts';
import type { LineFilter, RelayCursor } from './log-cursor.ts';
import type { RunRecord } from './run-record.ts';

/** The stream entries' prefix: the CLI prints a run's lines raw, without it. */
export const RUN_LINE_PREFIX = 'run';

export interface PodLogRead {
  kc: k8s.KubeConfig;
  namespace: string;
  pod: string;
  container: string;
  follow: boolean;
  sinceTime?: string;
  /** Complete lines as read (with their timestamps); the unfinished last one when the log ends. */
  onLines(lines: string[]): void;
  /** Only the last N lines (`kubectl logs --tail`). */
  tailLines?: number;
  /** Ends the read (the result is then `aborted`). */
  signal: AbortSignal;
}

/** Reads a pod's log once: `ended` when the server ended it (a follow ends with the container). */
export function readPodLog(read: PodLogRead): Promise<'ended' | 'aborted'> {
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let settled = false;
    let controller: AbortController | undefined;
    const settle = (how: 'ended' | 'aborted' | Error) => {
      if (settled) return;
      settled = true;
      read.signal.removeEventListener('abort', onAbort);
      controller?.abort();
      if (how instanceof Error) reject(how);
      else resolve(how);
    };
    const onAbort = () => settle('aborted');
    const take = (text: string) => {
      const split = splitLines(rest, text);
      rest = split.rest;
      if (!settled && split.lines.length > 0) read.onLines(split.lines);
    };
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        take(decoder.write(chunk));
        done();
      },
      final(done) {
        take(decoder.end());
        if (rest && !settled) read.onLines([rest]);
        rest = '';
        done();
        settle('ended');
      },
    });
    sink.on('error', (err) => settle(err));
    if (read.signal.aborted) return settle('aborted');
    read.signal.addEventListener('abort', onAbort, { once: true });
    new k8s.Log(read.kc)
      .log(read.namespace, read.pod, read.container, sink, {
        follow: read.follow,
        timestamps: true,
        ...(read.sinceTime ? { sinceTime: read.sinceTime } : {}),
        ...(read.tailLines !== undefined ? { tailLines: read.tailLines } : {}),
      })
      .then(
        (c) => {
          controller = c;
          if (settled) c.abort();
        },
        (err: unknown) => settle(err instanceof Error ? err : new Error(String(err))),
      );
  });
}

/** Writes lines read from a pod, and the cursor after them. */
export type RelaySink = (texts: string[], cursor: RelayCursor) => Promise<void>;

/**
 * A run's sink: the lines appended to the job's Redis stream in one transaction with the cursor
 * (stream-writer.ts), so the stream and the cursor never disagree.
 */
export function streamSink(writer: LogStreamWriter, record: RunRecord): RelaySink {
  return (texts, cursor) =>
    writer.add(
      texts.map((line) => ({ kind: 'line', prefix: RUN_LINE_PREFIX, line })),
      record.cursorWrite(cursor),
    );
}

/** Hands accepted lines to its sink, in order; a failed write fails the relay (no silent gap). */
export class RunRelay {
  private chain: Promise<void> = Promise.resolve();
  private writeError: unknown;

  constructor(private readonly sink: RelaySink) {}

  relay(filter: LineFilter, lines: readonly string[]): void {
    const texts: string[] = [];
    for (const line of lines) {
      const text = filter.accept(line);
      if (text !== undefined) texts.push(text);
    }
    if (texts.length === 0) return;
    const cursor = filter.position;
    // After a failed write nothing more is written: a later cursor would skip the lost lines.
    this.chain = this.chain
      .then(() => (this.writeError ? undefined : this.sink(texts, cursor)))
      .catch((err: unknown) => {
        this.writeError ??= err;
      });
  }

  /** Waits for every line handed over so far to be written. */
  async flushed(): Promise<void> {
    await this.chain;
    if (this.writeError) throw this.writeError;
  }
}
