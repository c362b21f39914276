/**
 * Appends a `logs` job's entries to its Redis stream (src/jobs/log-stream.ts): bounded with
 * XADD MAXLEN ~, and its TTL renewed with every write so it outlives the job by the stream's TTL.
 */
import type { Redis } from 'ioredis';
import { keys } from '../../jobs/keys.ts';
import {
  LOG_STREAM_MAXLEN,
  LOG_STREAM_TTL_SECONDS,
  type LogEntry,
  logEntryFields,
  parseLogEntry,
} from '../../jobs/log-stream.ts';

export class LogStreamWriter {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    jobId: string,
  ) {
    this.key = keys.logStream(jobId);
  }

  /** Entries in one transaction: a reader sees all of them or none (a tail is written at once). */
  async add(entries: readonly LogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const multi = this.redis.multi();
    for (const entry of entries)
      multi.xadd(this.key, 'MAXLEN', '~', String(LOG_STREAM_MAXLEN), '*', ...logEntryFields(entry));
    multi.expire(this.key, LOG_STREAM_TTL_SECONDS);
    await multi.exec();
  }

  /** The `end` an earlier attempt wrote (it finished; a duplicate delivery must not write again). */
  async endedWith(): Promise<string | undefined> {
    const last = (await this.redis.xrevrange(this.key, '+', '-', 'COUNT', 1))[0];
    const entry = last ? parseLogEntry(last[1]) : undefined;
    return entry?.kind === 'end' ? entry.reason : undefined;
  }

  /** Whether an earlier attempt already wrote lines (a resumed follow says so). */
  async hasEntries(): Promise<boolean> {
    return (await this.redis.exists(this.key)) === 1;
  }
}
