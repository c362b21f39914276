/**
 * Stable CronJob names. A task is identified by its command and schedule (as Dokku does); its
 * 8-character suffix (`{app}-cron-{suffix}`) is assigned the first time the task is seen and then
 * reused from the spec on every later deploy, whatever other tasks are added or removed. A new
 * suffix is derived from the task id (not random), so a retried job assigns the same one.
 */
import { createHash } from 'node:crypto';
import type { CronTaskSpec } from './spec.ts';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Identity of a cron task: its command and schedule (suspend and concurrency policy may change). */
export function cronTaskId(task: Pick<CronTaskSpec, 'command' | 'schedule'>): string {
  return createHash('sha256').update(`${task.command}\n${task.schedule}`).digest('hex').slice(0, 32);
}

function derivedSuffix(app: string, id: string, attempt: number): string {
  const hash = createHash('sha256').update(`${app}\n${id}\n${attempt}`).digest();
  let out = '';
  for (let i = 0; i < 8; i++) out += BASE32[hash[i]! % 32];
  return out;
}

/**
 * Suffixes for `tasks`: kept from `previous` (task id → suffix) where the task existed, new ones
 * for new tasks, never colliding with a suffix in use. Returns only the current tasks' entries.
 */
export function assignCronSuffixes(
  app: string,
  tasks: Pick<CronTaskSpec, 'command' | 'schedule'>[],
  previous: Record<string, string>,
): Record<string, string> {
  const ids = tasks.map(cronTaskId);
  const out: Record<string, string> = {};
  const used = new Set<string>();
  for (const id of ids) {
    const kept = previous[id];
    if (kept && !used.has(kept)) {
      out[id] = kept;
      used.add(kept);
    }
  }
  for (const id of ids) {
    if (out[id]) continue;
    let attempt = 0;
    let suffix = derivedSuffix(app, id, attempt);
    while (used.has(suffix)) suffix = derivedSuffix(app, id, ++attempt);
    out[id] = suffix;
    used.add(suffix);
  }
  return out;
}
