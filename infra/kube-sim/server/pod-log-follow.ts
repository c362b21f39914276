/**
 * `follow=true` for pod logs: after the lines already written, lines appended later to
 * `settings.podLogs` for the Pod are written as they arrive; the stream ends when the container
 * has terminated, the Pod has finished (Succeeded/Failed), or the Pod is gone, as the kubelet's
 * follow ends when the container exits. settings.podLogs is a plain Map, so new lines are found by
 * a short poll (a timer, stopped with the stream); Pod changes arrive from the store's change
 * stream.
 */
import type { ServerResponse } from 'node:http';
import type { KubeObject } from '../types.ts';
import {
  containerStatus,
  formatLines,
  type LogFormat,
  POD_TYPE_KEY,
  type PodLogContext,
  type PodShape,
  podLogLines,
} from './pod-log-lines.ts';

const POLL_MS = 20;

function finished(pod: KubeObject, container: string): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return true;
  return containerStatus(pod as PodShape, container)?.state?.terminated !== undefined;
}

export function followPodLog(
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
    const lines = podLogLines(ctx.settings, current);
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
