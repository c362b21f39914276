/**
 * `follow=true` for pod logs, as the kubelet's follow (kuberuntime/logs ReadLogs): after the lines
 * already written, new lines are written as they arrive, and the stream ends when the container
 * instance exits (or the client goes away).
 * - A container's own log: its instance's log in the node runtime tells each line and the exit.
 * - Planted lines (`settings.podLogs`): lines appended later are found by a short poll (a plain
 *   Map: a timer, stopped with the stream); the stream ends when the container has terminated,
 *   the Pod has finished (Succeeded/Failed) or is gone (from the store's change stream).
 * `limitBytes` ends the stream once that many bytes were written.
 */
import type { ServerResponse } from 'node:http';
import type { ContainerLog } from '../runtime/container-log.ts';
import type { KubeObject } from '../types.ts';
import {
  containerStatus,
  formatLines,
  type LogFormat,
  POD_TYPE_KEY,
  type PodLogContext,
  type PodShape,
  plantedLines,
  rfc3339Nano,
} from './pod-log-lines.ts';

/** Writes at most `limit` bytes in all, then ends the response (limitBytes). */
export class LimitedWriter {
  private remaining: number;
  ended = false;

  constructor(
    private readonly res: ServerResponse,
    limit: number | undefined,
  ) {
    this.remaining = limit ?? Number.POSITIVE_INFINITY;
  }

  write(text: string): void {
    if (this.ended || text === '') return;
    let chunk = Buffer.from(text, 'utf8');
    if (chunk.length > this.remaining) chunk = chunk.subarray(0, this.remaining);
    this.remaining -= chunk.length;
    this.res.write(chunk);
    if (this.remaining <= 0) this.end();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.res.end();
  }
}

/** Follows a container instance's log until it exits. */
export function followContainerLog(
  log: ContainerLog,
  timestamps: boolean,
  out: LimitedWriter,
  res: ServerResponse,
): void {
  const unfollow = log.follow({
    line: (line) => {
      out.write(`${timestamps ? `${rfc3339Nano(line.at)} ` : ''}${line.text}\n`);
      if (out.ended) unfollow();
    },
    closed: () => out.end(),
  });
  res.on('close', () => unfollow());
}

const POLL_MS = 20;

function finished(pod: KubeObject, container: string): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return true;
  return containerStatus(pod as PodShape, container)?.state?.terminated !== undefined;
}

/** Follows lines planted in settings.podLogs until the Pod's container ends. */
export function followPlantedLog(
  ctx: PodLogContext,
  pod: KubeObject,
  container: string,
  alreadyWritten: number,
  format: LogFormat,
  res: ServerResponse,
): void {
  const { namespace, name, uid } = pod.metadata;
  let written = alreadyWritten;
  let open = true;

  const close = () => {
    if (!open) return;
    open = false;
    clearInterval(timer);
    unsubscribe();
  };
  const check = () => {
    if (!open) return;
    const current = ctx.store.get(POD_TYPE_KEY, namespace, name!);
    if (!current || current.metadata.uid !== uid) {
      close();
      res.end();
      return;
    }
    const lines = plantedLines(ctx.settings, current) ?? [];
    if (lines.length > written) {
      res.write(formatLines(lines.slice(written), format, new Date()));
      written = lines.length;
    }
    if (finished(current, container)) {
      close();
      res.end();
    }
  };

  const timer = setInterval(check, POLL_MS);
  timer.unref();
  const unsubscribe = ctx.store.subscribe((event) => {
    if (event.typeKey === POD_TYPE_KEY && event.object.metadata.uid === uid) check();
  });
  // The client going away (or the server stopping) ends the follow.
  res.on('close', close);
  check();
}
