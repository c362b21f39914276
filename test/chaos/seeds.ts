/**
 * Which seeds and sizes a chaos run uses, from the environment: `CHAOS_SEED=N` (the first seed,
 * default 1), `CHAOS_SEEDS=K` (K consecutive seeds from it, default 1), `CHAOS_APPS` and
 * `CHAOS_JOBS` (jobs per app). Bad values are refused before anything starts.
 */
import type { ChaosSize } from './plan.ts';

export class ChaosSettingError extends Error {
  override name = 'ChaosSettingError';
}

function whole(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ChaosSettingError(
      `${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`,
    );
  return n;
}

export function chaosSeeds(): number[] {
  const first = whole('CHAOS_SEED', 1, 0, 2 ** 31 - 1);
  const count = whole('CHAOS_SEEDS', 1, 1, 1000);
  return Array.from({ length: count }, (_, i) => first + i);
}

/** The full run (`npm run test:chaos`): 50 apps by default. */
export function fullSize(): ChaosSize {
  return {
    apps: whole('CHAOS_APPS', 50, 1, 1000),
    jobsPerApp: whole('CHAOS_JOBS', 8, 1, 100),
    kills: whole('CHAOS_KILLS', 4, 0, 100),
    redisRestarts: 1,
    workers: whole('CHAOS_WORKERS', 3, 1, 16),
    concurrency: 4,
  };
}

/**
 * The bounded run in `npm test` (CI): small enough for about a minute on a loaded 2-core machine,
 * with the 3 worker processes of the full run (a job may run on another worker than the app's
 * previous one: the cache fences of docs/ordering.md are part of what it checks).
 */
export const BOUNDED_SIZE: ChaosSize = {
  apps: 10,
  jobsPerApp: 4,
  kills: 1,
  redisRestarts: 1,
  workers: 3,
  concurrency: 4,
};
