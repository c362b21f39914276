/**
 * Attempt history of a job, kept in `{longshore}:job:<id>:attempts` (a list, oldest first): one
 * record each time a worker starts running the job's handler, closed when that run ends.
 * A record without `endedAt` belongs to a run that was interrupted (the worker died).
 */
export interface AttemptRecord {
  /** 1-based position in the list; computed when read, not stored. */
  attempt: number;
  worker: string;
  pid: number;
  startedAt: number;
  endedAt?: number;
  outcome?: 'completed' | 'failed' | 'retrying' | 'handed-back' | 'cancelled' | 'lock-lost';
  error?: string;
}

export type StoredAttempt = Omit<AttemptRecord, 'attempt'>;

export function parseAttempts(raw: string[]): AttemptRecord[] {
  return raw.flatMap((line, index) => {
    try {
      return [{ ...(JSON.parse(line) as StoredAttempt), attempt: index + 1 }];
    } catch {
      return [];
    }
  });
}
