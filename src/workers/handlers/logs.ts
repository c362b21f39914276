/**
 * `logs`: the app's pod logs, relayed to the job's Redis stream (src/jobs/log-stream.ts) and read
 * there by the CLI (docs/apps.md, "logs"). Each line carries its pod's `{process}.{n}` prefix
 * (workers/logs/pod-numbering.ts). A read: it writes nothing to the cluster.
 * - Without `follow`: each pod's last `tail` lines (readNamespacedPodLog), written with the `end`
 *   entry in one transaction; a duplicate delivery finds the `end` and writes nothing again.
 * - With `follow`: the lines as they come (workers/logs/follow.ts) until the reader cancels the job
 *   (Ctrl-C), its heartbeat goes stale, or every pod's log ends. Ending a follow is the normal end,
 *   so a cancel completes the job instead of failing it. A worker shutting down hands the job back;
 *   the next attempt starts again from each pod's last `tail` lines, after a line that says so.
 */
import { PermanentError } from '../../core/errors.ts';
import { LOG_READER_TIMEOUT_MS, type LogEntry } from '../../jobs/log-stream.ts';
import type { LogsPayload } from '../../jobs/schemas/logs.ts';
import type { Handler } from '../handler.ts';
import { appPods } from '../logs/app-pods.ts';
import { type FollowEnd, followPods } from '../logs/follow.ts';
import { numberPods, splitLines } from '../logs/pod-numbering.ts';
import { READER_CHECK_MS, readerPresence } from '../logs/reader.ts';
import { LogStreamWriter } from '../logs/stream-writer.ts';

const FOLLOW_ENDS: Record<FollowEnd, string> = {
  'pods-ended': 'the logs of every pod ended',
  'reader-gone': `the reader went away (no heartbeat for ${LOG_READER_TIMEOUT_MS / 1000} s)`,
  aborted: 'stopped by its reader',
};

export const logsHandler: Handler<LogsPayload> = async (ctx) => {
  const { app, process, tail, follow } = ctx.payload;
  const { redis } = ctx.services;
  const writer = new LogStreamWriter(redis, ctx.job.id);
  const ended = await writer.endedWith();
  if (ended !== undefined) return { summary: ended };

  const cluster = await ctx.services.cluster();
  const { namespace, pods } = await appPods(cluster, app, process);
  const numbered = numberPods(pods);
  if (numbered.length === 0) {
    const reason = `${app} has no running pods${process ? ` of process ${process}` : ''}`;
    await writer.add([{ kind: 'end', reason }]);
    return { summary: reason, pods: 0 };
  }

  if (!follow) {
    const entries: LogEntry[] = [];
    for (const pod of numbered) {
      const text = await cluster.kube.core.readNamespacedPodLog({
        name: pod.name,
        namespace,
        container: pod.container,
        tailLines: tail,
      });
      const { lines, rest } = splitLines('', String(text ?? ''));
      for (const line of rest ? [...lines, rest] : lines)
        entries.push({ kind: 'line', prefix: pod.prefix, line });
    }
    const reason = `${entries.length} lines of ${numbered.length} pods`;
    await writer.add([...entries, { kind: 'end', reason }]);
    return { summary: reason, pods: numbered.length, lines: entries.length };
  }

  if (await writer.hasEntries())
    await writer.add([
      {
        kind: 'line',
        prefix: 'longshore',
        line: `the worker following these logs changed; each pod's last ${tail} lines again:`,
      },
    ]);
  const end = await followPods({
    kc: cluster.kube.kc,
    namespace,
    pods: numbered,
    tail,
    writer,
    signal: ctx.signal,
    readerCheckMs: READER_CHECK_MS,
    readerAlive: readerPresence(redis, ctx.job.id),
  });
  if (end === 'aborted' && !ctx.cancelled) {
    // Shutdown or a lost lock: not the reader's doing; the runner hands the job back or lets go.
    throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new PermanentError('aborted');
  }
  const reason = `follow ended: ${FOLLOW_ENDS[end]}`;
  await writer.add([{ kind: 'end', reason }]);
  return { summary: reason, pods: numbered.length };
};
