/**
 * Attempt history of a job: one record each time a worker starts running its handler, closed when
 * that run ends. Kept in the job's own hash (JOB_FIELDS), so it lives as long as the job. A record
 * without `endedAt` belongs to a run that was interrupted (its worker died).
 */
import type { Redis } from 'ioredis';
import { JOB_FIELDS, keys } from './keys.ts';

export interface AttemptRecord {
  /** 1-based number of the attempt; computed when read, not stored. */
  attempt: number;
  worker: string;
  pid: number;
  startedAt: number;
  endedAt?: number;
  outcome?: 'completed' | 'failed' | 'retrying' | 'handed-back' | 'cancelled' | 'lock-lost';
  error?: string;
}

export type StoredAttempt = Omit<AttemptRecord, 'attempt'>;

/** Parses stored records (oldest first), skipping any that are unreadable. */
export function parseAttempts(raw: (string | null)[]): AttemptRecord[] {
  return raw.flatMap((line, index) => {
    if (!line) return [];
    try {
      return [{ ...(JSON.parse(line) as StoredAttempt), attempt: index + 1 }];
    } catch {
      return [];
    }
  });
}

export async function readAttempts(redis: Redis, jobId: string): Promise<AttemptRecord[]> {
  const count = Number((await redis.hget(keys.job(jobId), JOB_FIELDS.attemptCount)) ?? 0);
  if (count === 0) return [];
  const fields = Array.from({ length: count }, (_, i) => `${JOB_FIELDS.attemptPrefix}${i + 1}`);
  return parseAttempts(await redis.hmget(keys.job(jobId), ...fields));
}
