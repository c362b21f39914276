/**
 * Attempt history of a job: one record each time a worker starts running its handler, closed when
 * that run ends. Kept in the job's own hash (JOB_FIELDS: `lsA:<attemptNumber>` holds the record as
 * JSON, `lsAN` the count), so it lives as long as the job. A record without `endedAt` belongs to a
 * run that was interrupted (its worker died).
 *
 * Names used for it everywhere: `AttemptRecord` is the stored object, `attemptJson` its serialised
 * form, `attemptNumber` its 1-based place in the history (the hash field's suffix, not stored in
 * the record).
 */
import type { Redis } from 'ioredis';
import { JOB_FIELDS, keys } from './keys.ts';

export type AttemptOutcome = 'completed' | 'failed' | 'retrying' | 'handed-back' | 'cancelled' | 'lock-lost';

export interface AttemptRecord {
  worker: string;
  pid: number;
  startedAt: number;
  endedAt?: number;
  outcome?: AttemptOutcome;
  error?: string;
  /**
   * The cache fence the attempt left (src/kube/cache-fence.ts, as JSON): a retry on another worker
   * waits for its caches to hold what this attempt wrote.
   */
  cacheFence?: string;
}

/** An attempt record as read back, with its number. */
export interface NumberedAttempt extends AttemptRecord {
  attemptNumber: number;
}

/** The closing version of a started record: when it ended and, when known, how and why. */
export function endedAttempt(
  started: AttemptRecord,
  outcome: AttemptOutcome | undefined,
  error?: string,
  cacheFence?: string,
): AttemptRecord {
  return {
    ...started,
    endedAt: Date.now(),
    ...(outcome ? { outcome } : {}),
    ...(error ? { error } : {}),
    ...(cacheFence ? { cacheFence } : {}),
  };
}

/** Parses stored records (oldest first, `attemptJson[i]` is attempt i + 1), skipping any that are unreadable. */
export function parseAttempts(attemptJson: (string | null)[]): NumberedAttempt[] {
  return attemptJson.flatMap((json, index) => {
    if (!json) return [];
    try {
      return [{ ...(JSON.parse(json) as AttemptRecord), attemptNumber: index + 1 }];
    } catch {
      return [];
    }
  });
}

export async function readAttempts(redis: Redis, jobId: string): Promise<NumberedAttempt[]> {
  const count = Number((await redis.hget(keys.job(jobId), JOB_FIELDS.attemptCount)) ?? 0);
  if (count === 0) return [];
  const fields = Array.from({ length: count }, (_, i) => `${JOB_FIELDS.attemptPrefix}${i + 1}`);
  return parseAttempts(await redis.hmget(keys.job(jobId), ...fields));
}
