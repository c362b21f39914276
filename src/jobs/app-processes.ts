/**
 * The process types of each app as its last successful job left them, kept in the app's status
 * projection (field `processTypes` of `{longshore}:status:app.<app>`, so it goes when the
 * projection goes). Workers record it; producers read it to refuse `ps:scale APP nope=1` or an
 * app.json formation naming a type the app lacks before enqueueing anything, without cluster
 * credentials.
 *
 * Only a hint: the worker checks against the app's saved spec in every case, and a producer
 * trusts the hint only while none of the app's jobs is pending, since a queued deploy may change
 * the set before the new job runs.
 */
import type { Redis } from 'ioredis';
import type { FieldIssue } from '../core/errors.ts';
import { keys } from './keys.ts';
import { laneId } from './lane.ts';

export const PROCESS_TYPES_FIELD = 'processTypes';

/**
 * The Procfile type that is the release task (Heroku's and Dokku's name): run as a Job before the
 * rollout (src/workers/deploy/release-task.ts), never a process type with a Deployment.
 */
export const RELEASE_PROCESS = 'release';

export async function recordProcessTypes(redis: Redis, app: string, types: string[]): Promise<void> {
  const lane = laneId({ kind: 'app', name: app });
  await redis.hset(keys.status(lane), PROCESS_TYPES_FIELD, JSON.stringify([...types].sort()));
}

/** The app's process types when known and no job of the app is pending; otherwise undefined. */
export async function settledProcessTypes(redis: Redis, app: string): Promise<string[] | undefined> {
  const lane = laneId({ kind: 'app', name: app });
  const replies = await redis
    .multi()
    .hget(keys.status(lane), PROCESS_TYPES_FIELD)
    .zcard(keys.lanePending(lane))
    .exec();
  const raw = replies?.[0]?.[1];
  const pending = Number(replies?.[1]?.[1] ?? 1);
  if (typeof raw !== 'string' || pending > 0) return undefined;
  try {
    const types = JSON.parse(raw) as unknown;
    return Array.isArray(types) && types.every((t) => typeof t === 'string') ? types : undefined;
  } catch {
    return undefined;
  }
}

/** `ps:scale` naming types the app does not have: one issue each, listing the types it has. */
export function unknownScaleTypes(app: string, named: string[], known: string[]): FieldIssue[] {
  const have = [...known].sort();
  return named
    .filter((type) => !have.includes(type))
    .sort()
    .map((type) => ({
      path: `processes.${type}`,
      message:
        have.length > 0
          ? `unknown process type "${type}" (app ${app} has: ${have.join(', ')})`
          : `unknown process type "${type}" (app ${app} has no process types yet: deploy it first)`,
    }));
}

/**
 * app.json `formation` or `healthchecks` naming types outside the set the deploy runs: the app's
 * own (no Procfile) or, with a Procfile, the Procfile's.
 */
export function unknownFormationTypes(
  field: 'formation' | 'healthchecks',
  named: string[],
  known: string[],
  from: 'app' | 'procfile',
): FieldIssue[] {
  const have = [...known].sort();
  const list =
    from === 'app'
      ? `the app has: ${have.join(', ')} (a deploy whose Procfile declares a type adds it)`
      : `the deploy's Procfile declares: ${have.join(', ')}`;
  return named
    .filter((type) => !have.includes(type))
    .sort()
    .map((type) => ({ path: field, message: `names process type "${type}"; ${list}` }));
}
