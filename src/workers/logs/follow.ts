/**
 * `logs -f`: one follow stream per pod (client-node's `Log`, `follow=true`), each chunk split into
 * lines that are relayed to the job's Redis stream as they come, so lines of several pods
 * interleave in arrival order. Relayed through one promise chain, so they land in the order they
 * arrived. The follow ends when every pod's stream has ended (the pods finished or were deleted,
 * as the kubelet ends a follow), when the job is aborted (the reader pressed Ctrl-C and cancelled
 * it; shutdown; a lost lock), or when the reader's heartbeat is gone (it went away without a word).
 */
import { Writable } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import type { LogEntry } from '../../jobs/log-stream.ts';
import { type NumberedPod, splitLines } from './pod-numbering.ts';
import type { LogStreamWriter } from './stream-writer.ts';

export type FollowEnd = 'pods-ended' | 'reader-gone' | 'aborted';

export interface FollowOptions {
  kc: k8s.KubeConfig;
  namespace: string;
  pods: readonly NumberedPod[];
  tail: number;
  writer: LogStreamWriter;
  signal: AbortSignal;
  /** False once the reader's heartbeat is gone; polled every `readerCheckMs`. */
  readerAlive(): Promise<boolean>;
  readerCheckMs: number;
}

export async function followPods(options: FollowOptions): Promise<FollowEnd> {
  const { writer, signal } = options;
  let chain: Promise<void> = Promise.resolve();
  let writeError: unknown;
  const relay = (entries: LogEntry[]) => {
    if (entries.length === 0) return;
    chain = chain
      .then(() => writer.add(entries))
      .catch((err: unknown) => {
        writeError ??= err;
      });
  };

  const log = new k8s.Log(options.kc);
  const controllers: AbortController[] = [];
  const ended = options.pods.map(
    (pod) =>
      new Promise<void>((resolve, reject) => {
        let rest = '';
        const sink = new Writable({
          write(chunk: Buffer, _encoding, done) {
            const split = splitLines(rest, chunk.toString('utf8'));
            rest = split.rest;
            relay(split.lines.map((line) => ({ kind: 'line', prefix: pod.prefix, line })));
            done();
          },
          final(done) {
            if (rest) relay([{ kind: 'line', prefix: pod.prefix, line: rest }]);
            rest = '';
            done();
            resolve();
          },
        });
        sink.on('error', reject);
        log
          .log(options.namespace, pod.name, pod.container, sink, { follow: true, tailLines: options.tail })
          .then((controller) => {
            controllers.push(controller);
            if (signal.aborted) controller.abort();
          }, reject);
      }),
  );

  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let outcome: FollowEnd;
  try {
    outcome = await Promise.race<FollowEnd>([
      Promise.all(ended).then(() => 'pods-ended' as const),
      new Promise<FollowEnd>((resolve) => {
        onAbort = () => resolve('aborted');
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
      new Promise<FollowEnd>((resolve, reject) => {
        const check = () => {
          options.readerAlive().then((alive) => {
            if (!alive) resolve('reader-gone');
            else timer = setTimeout(check, options.readerCheckMs);
          }, reject);
        };
        timer = setTimeout(check, options.readerCheckMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    // Ends every pod's follow request (the simulator and the kubelet stop writing when it closes).
    for (const controller of controllers) controller.abort();
    await chain;
  }
  // A line that could not be relayed fails the job rather than leaving a silent gap.
  if (writeError) throw writeError;
  return outcome;
}
