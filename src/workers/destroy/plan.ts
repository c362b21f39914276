/**
 * A destroy's plan, kept in the job's own hash (`lsDestroy`, it expires with the job): written once,
 * before the first write to the cluster, and read back by every retry. It says two things the
 * cluster can no longer tell once the app record is gone: that this job already started (so a retry
 * that finds nothing left finishes instead of failing with "does not exist"), and which storage
 * entries `--with-storage` must destroy (the mounts were in the spec the record held).
 */
import type { Redis } from 'ioredis';
import { JOB_FIELDS, keys } from '../../jobs/keys.ts';

export interface DestroyPlan {
  /** Storage entries to destroy once the app is gone (empty without --with-storage). */
  storage: string[];
  /** Of those, the ones whose storage-destroy job is enqueued (a retry skips them). */
  enqueued: string[];
}

export async function readPlan(redis: Redis, jobId: string): Promise<DestroyPlan | undefined> {
  const raw = await redis.hget(keys.job(jobId), JOB_FIELDS.destroyPlan);
  if (!raw) return undefined;
  const parsed = JSON.parse(raw) as Partial<DestroyPlan>;
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);
  return { storage: list(parsed.storage), enqueued: list(parsed.enqueued) };
}

export async function savePlan(redis: Redis, jobId: string, plan: DestroyPlan): Promise<void> {
  await redis.hset(keys.job(jobId), JOB_FIELDS.destroyPlan, JSON.stringify(plan));
}
