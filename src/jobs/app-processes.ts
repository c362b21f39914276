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
import { processObjectName } from '../../charts/names.ts';
import type { FieldIssue } from '../core/errors.ts';
import { keys } from './keys.ts';
import { laneId } from './lane.ts';

export const PROCESS_TYPES_FIELD = 'processTypes';

/** The autoscaled ones among them (app.json `formation.<type>.autoscaling`), for `ps:scale`. */
export const AUTOSCALED_TYPES_FIELD = 'autoscaledTypes';

/**
 * The Procfile type that is the release task (Heroku's and Dokku's name): run as a Job before the
 * rollout (src/workers/deploy/release-task.ts), never a process type with a Deployment.
 */
export const RELEASE_PROCESS = 'release';

export async function recordProcessTypes(
  redis: Redis,
  app: string,
  types: string[],
  autoscaled: string[] = [],
): Promise<void> {
  const lane = laneId({ kind: 'app', name: app });
  await redis.hset(keys.status(lane), {
    [PROCESS_TYPES_FIELD]: JSON.stringify([...types].sort()),
    [AUTOSCALED_TYPES_FIELD]: JSON.stringify([...autoscaled].sort()),
  });
}

/** The app's autoscaled types when known and no job of the app is pending; otherwise undefined. */
export async function settledAutoscaledTypes(redis: Redis, app: string): Promise<string[] | undefined> {
  const lane = laneId({ kind: 'app', name: app });
  const replies = await redis
    .multi()
    .hget(keys.status(lane), AUTOSCALED_TYPES_FIELD)
    .zcard(keys.lanePending(lane))
    .exec();
  return settledList(replies?.[0]?.[1], Number(replies?.[1]?.[1] ?? 1));
}

/**
 * `ps:scale` of an autoscaled type: its replicas are the autoscaler's (charts/app/autoscaler.ts),
 * so a count set here would never be written, and would be undone if it were.
 */
export function autoscaledScaleIssue(app: string, type: string): FieldIssue {
  return {
    path: `processes.${type}`,
    message: `${type} is autoscaled by its autoscaler ${processObjectName(app, type)} (app.json formation.${type}.autoscaling); change min_quantity/max_quantity there instead`,
  };
}

function settledList(raw: unknown, pending: number): string[] | undefined {
  if (typeof raw !== 'string' || pending > 0) return undefined;
  try {
    const list = JSON.parse(raw) as unknown;
    return Array.isArray(list) && list.every((t) => typeof t === 'string') ? list : undefined;
  } catch {
    return undefined;
  }
}

/** The app's process types when known and no job of the app is pending; otherwise undefined. */
export async function settledProcessTypes(redis: Redis, app: string): Promise<string[] | undefined> {
  const lane = laneId({ kind: 'app', name: app });
  const replies = await redis
    .multi()
    .hget(keys.status(lane), PROCESS_TYPES_FIELD)
    .zcard(keys.lanePending(lane))
    .exec();
  return settledList(replies?.[0]?.[1], Number(replies?.[1]?.[1] ?? 1));
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
