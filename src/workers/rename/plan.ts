/**
 * A rename's recorded steps, kept in the job's own hash (`lsRename`, it expires with the job):
 * written before the first write to the cluster and advanced after each step, so a retry after a
 * crash resumes where the last attempt got (docs/apps.md, "rename"). `installed` means the app is
 * running under the new name (its releases deployed and its spec saved as NEW's record): from then
 * on OLD's releases are only uninstalled, never read again (they may already be gone).
 */
import type { Redis } from 'ioredis';
import { JOB_FIELDS, keys } from '../../jobs/keys.ts';

export type RenameStep = 'planned' | 'installed' | 'uninstalled' | 'moved';

export interface RenamePlan {
  step: RenameStep;
}

const STEPS: readonly RenameStep[] = ['planned', 'installed', 'uninstalled', 'moved'];

export async function readRenamePlan(redis: Redis, jobId: string): Promise<RenamePlan | undefined> {
  const raw = await redis.hget(keys.job(jobId), JOB_FIELDS.renamePlan);
  if (!raw) return undefined;
  const step = (JSON.parse(raw) as Partial<RenamePlan>).step;
  return { step: step && STEPS.includes(step) ? step : 'planned' };
}

export async function saveRenamePlan(redis: Redis, jobId: string, plan: RenamePlan): Promise<void> {
  await redis.hset(keys.job(jobId), JOB_FIELDS.renamePlan, JSON.stringify(plan));
}

/** True when `plan` has reached `step` (or a later one). */
export function reached(plan: RenamePlan, step: RenameStep): boolean {
  return STEPS.indexOf(plan.step) >= STEPS.indexOf(step);
}
