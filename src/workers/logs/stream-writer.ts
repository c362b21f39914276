/**
 * Appends a `logs` or `run` job's entries to its Redis stream (src/jobs/log-stream.ts): bounded with
 * XADD MAXLEN ~, and its TTL renewed with every write so it outlives the job by the stream's TTL.
 */
import type { ChainableCommander, Redis } from 'ioredis';
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

  /**
   * Entries in one transaction: a reader sees all of them or none (a tail is written at once).
   * `alongside` adds writes of the caller's to the same transaction (a run's relay cursor, which
   * must never say more or less than the stream holds).
   */
  async add(entries: readonly LogEntry[], alongside?: (multi: ChainableCommander) => void): Promise<void> {
    if (entries.length === 0) return;
    const multi = this.redis.multi();
    for (const entry of entries)
      multi.xadd(this.key, 'MAXLEN', '~', String(LOG_STREAM_MAXLEN), '*', ...logEntryFields(entry));
    multi.expire(this.key, LOG_STREAM_TTL_SECONDS);
    alongside?.(multi);
    const replies = await multi.exec();
    // A transaction that did not run (null) or a command that failed in it must not pass as relayed.
    const failed = replies?.find(([err]) => err)?.[0];
    if (!replies || failed) throw failed ?? new Error(`writing ${this.key}: the transaction was discarded`);
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
