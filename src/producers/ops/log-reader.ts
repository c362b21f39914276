/**
 * The reading side of a `logs` job's stream (src/jobs/log-stream.ts): XREAD BLOCK on a connection
 * of its own, each line handed to `onLine` as it arrives, until the job's `end` entry, the job
 * failing (its reason), or `stopped()` (Ctrl-C). Each block is bounded (LOG_READ_BLOCK_MS), so a
 * job that failed without writing `end` (unknown app, a crash on its last attempt) and a stop are
 * noticed within about a second.
 */
import { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobClient } from '../../jobs/client.ts';
import { keys } from '../../jobs/keys.ts';
import {
  LOG_READ_BLOCK_MS,
  LOG_READER_REFRESH_MS,
  LOG_READER_TIMEOUT_MS,
  parseLogEntry,
} from '../../jobs/log-stream.ts';
import { cancelJob } from './jobs-ops.ts';

export type LogReadEnd =
  | { kind: 'ended'; reason: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'stopped' };

export interface LogReadOptions {
  onLine(prefix: string, line: string): void;
  /** True once the reader should stop (checked after every block). */
  stopped(): boolean;
}

type XReadReply = [string, [string, string[]][]][] | null;

export async function readLogStream(
  client: JobClient,
  redis: Redis,
  jobId: string,
  options: LogReadOptions,
): Promise<LogReadEnd> {
  const key = keys.logStream(jobId);
  const blocking = redis.duplicate();
  blocking.on('error', () => undefined);
  let lastId = '0';
  /** Hands out the entries after lastId; returns the `end` reason when one came. */
  const read = async (blockMs: number | undefined): Promise<string | undefined> => {
    const reply = (
      blockMs === undefined
        ? await blocking.xread('COUNT', 1000, 'STREAMS', key, lastId)
        : await blocking.xread('COUNT', 1000, 'BLOCK', blockMs, 'STREAMS', key, lastId)
    ) as XReadReply;
    for (const [, entries] of reply ?? []) {
      for (const [id, fields] of entries) {
        lastId = id;
        const entry = parseLogEntry(fields);
        if (entry?.kind === 'end') return entry.reason;
        if (entry?.kind === 'line') options.onLine(entry.prefix, entry.line);
      }
    }
    return undefined;
  };
  /** Everything left in the stream, without blocking (after the job ended). */
  const drain = async (): Promise<string | undefined> => {
    for (;;) {
      const before = lastId;
      const end = await read(undefined);
      if (end !== undefined || lastId === before) return end;
    }
  };
  try {
    for (;;) {
      const end = await read(LOG_READ_BLOCK_MS);
      if (end !== undefined) return { kind: 'ended', reason: end };
      if (options.stopped()) return { kind: 'stopped' };
      const job = await Job.fromId(client.queueFor(jobId), jobId);
      const state = job ? await job.getState() : 'unknown';
      if (state === 'failed') {
        const drained = await drain();
        if (drained !== undefined) return { kind: 'ended', reason: drained };
        return { kind: 'failed', reason: job?.failedReason ?? 'failed' };
      }
      if (state === 'completed' || state === 'unknown') {
        const drained = await drain();
        const summary = (job?.returnvalue as { summary?: string } | undefined)?.summary;
        return { kind: 'ended', reason: drained ?? summary ?? 'the job ended' };
      }
    }
  } finally {
    blocking.disconnect();
  }
}

/**
 * readLogStream for a job whose worker goes on until its reader goes (`logs -f`, `run`): keeps the
 * reader's heartbeat (keys.logReader) alive while reading; when the reader stops (Ctrl-C), drops
 * the heartbeat and cancels the job, so the worker stops at once (were none listening, the
 * heartbeat's expiry stops it within LOG_READER_TIMEOUT_MS).
 */
export async function followLogStream(
  client: JobClient,
  redis: Redis,
  jobId: string,
  options: LogReadOptions,
): Promise<LogReadEnd> {
  const readerKey = keys.logReader(jobId);
  const beat = () => redis.set(readerKey, '1', 'PX', LOG_READER_TIMEOUT_MS).catch(() => undefined);
  await beat();
  const heartbeat = setInterval(beat, LOG_READER_REFRESH_MS);
  let end: LogReadEnd;
  try {
    end = await readLogStream(client, redis, jobId, options);
  } finally {
    clearInterval(heartbeat);
  }
  if (end.kind === 'stopped') {
    await redis.del(readerKey).catch(() => undefined);
    await cancelJob(client, redis, jobId).catch(() => undefined);
  }
  return end;
}
