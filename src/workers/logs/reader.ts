/**
 * Whether the reader of a relayed stream (`logs -f`, `run`) is still there: the CLI refreshes the
 * heartbeat key `{longshore}:logs:{jobId}:reader` every LOG_READER_REFRESH_MS with a TTL of
 * LOG_READER_TIMEOUT_MS. The CLI sets it just after enqueueing, so a job that starts before the
 * first beat is given one timeout before its reader counts as gone.
 */
import type { Redis } from 'ioredis';
import { keys } from '../../jobs/keys.ts';
import { LOG_READER_TIMEOUT_MS } from '../../jobs/log-stream.ts';

/** How often a relay checks its reader's heartbeat. */
export const READER_CHECK_MS = 1_000;

export function readerPresence(redis: Redis, jobId: string): () => Promise<boolean> {
  const started = Date.now();
  const key = keys.logReader(jobId);
  return async () => Date.now() - started < LOG_READER_TIMEOUT_MS || (await redis.exists(key)) === 1;
}
