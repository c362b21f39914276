/**
 * What a rollback job must remember across attempts, kept in the job's own hash (`lsRollback`, it
 * expires with the job): the `config-{app}` revision deployed when the job first started, written
 * before its first write. When the app's rollback fails for good, config goes back to that
 * revision; a retry after a crash in step 2 or 3 finds config already rolled back, so it could not
 * tell what was there before without this record (docs/apps.md, "rollback").
 */
import type { Redis } from 'ioredis';
import { JOB_FIELDS, keys } from '../../jobs/keys.ts';

export interface RollbackPlan {
  /** The deployed revision of `config-{app}` before the job; null when it had none. */
  configBefore: number | null;
}

export async function readRollbackPlan(redis: Redis, jobId: string): Promise<RollbackPlan | undefined> {
  const raw = await redis.hget(keys.job(jobId), JOB_FIELDS.rollbackPlan);
  if (!raw) return undefined;
  const before = (JSON.parse(raw) as Partial<RollbackPlan>).configBefore;
  return { configBefore: typeof before === 'number' ? before : null };
}

export async function saveRollbackPlan(redis: Redis, jobId: string, plan: RollbackPlan): Promise<void> {
  await redis.hset(keys.job(jobId), JOB_FIELDS.rollbackPlan, JSON.stringify(plan));
}
