/**
 * The app job endpoints (`POST /api/v1/apps/:app/<segment>`): which job type each path enqueues,
 * and how a request body becomes its payload. The body is the job's payload without `app` (the
 * path names it), validated by the same zod contract the CLI and the workers use. Secret values
 * arrive in plain text over the API's TLS and are sealed here, before the payload exists, as the
 * CLI seals them: a `config` body's `set`, a `deploy` body's `env` and registry `password`.
 */
import { InvalidInputError } from '../../core/errors.ts';
import type { JobType } from '../../jobs/contract.ts';
import { sealConfigSet } from '../../jobs/sealed-input.ts';
import { type Sealer, sealContext } from '../../jobs/sealing.ts';

/** Path segment → job type; plural for jobs that are things of their own (deploys, rollbacks). */
export const APP_JOB_SEGMENTS = {
  deploys: 'deploy',
  config: 'config',
  scale: 'scale',
  domains: 'domains',
  ports: 'ports',
  properties: 'properties',
  resources: 'resources',
  ps: 'ps',
  metadata: 'metadata',
  mounts: 'mounts',
  rollbacks: 'rollback',
  rename: 'rename',
  destroy: 'destroy',
} as const satisfies Record<string, JobType>;

export type AppJobSegment = keyof typeof APP_JOB_SEGMENTS;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Plain `KEY: value` strings of `field`, refused naming the key when a value is not a string. */
function plainStrings(value: unknown, field: string, allowNull: boolean): Record<string, string | null> {
  if (!isRecord(value))
    throw new InvalidInputError([{ path: field, message: 'must be an object of KEY: value' }]);
  const issues = Object.entries(value)
    .filter(([, v]) => typeof v !== 'string' && !(allowNull && v === null))
    .map(([k]) => ({
      path: `${field}.${k}`,
      message: allowNull ? 'must be a string, or null to unset' : 'must be a string',
    }));
  if (issues.length > 0) throw new InvalidInputError(issues);
  return value as Record<string, string | null>;
}

/** The payload of a `type` job for `app` from a request body; secrets sealed, nothing else changed. */
export function payloadFromBody(
  type: JobType,
  app: string,
  body: unknown,
  sealer: () => Sealer,
): Record<string, unknown> {
  const given = body === undefined || body === null ? {} : body;
  if (!isRecord(given)) throw new InvalidInputError([{ path: 'body', message: 'must be a JSON object' }]);
  if ('app' in given && given.app !== app) {
    throw new InvalidInputError([
      { path: 'app', message: `names "${String(given.app)}", but the path names "${app}"` },
    ]);
  }
  const payload: Record<string, unknown> = { ...given, app };
  if (type === 'config' && given.set !== undefined) {
    const plain = plainStrings(given.set, 'set', false) as Record<string, string>;
    payload.set = sealConfigSet(sealer(), app, plain);
  }
  if (type === 'deploy' && given.env !== undefined) {
    const changes = plainStrings(given.env, 'env', true);
    const set = Object.fromEntries(
      Object.entries(changes).filter((e): e is [string, string] => e[1] !== null),
    );
    const sealed: Record<string, unknown> = sealConfigSet(sealer(), app, set, 'env');
    for (const [key, value] of Object.entries(changes)) if (value === null) sealed[key] = null;
    payload.env = sealed;
  }
  if (type === 'deploy' && isRecord(given.registry) && given.registry.password !== undefined) {
    if (typeof given.registry.password !== 'string') {
      throw new InvalidInputError([{ path: 'registry.password', message: 'must be a string' }]);
    }
    payload.registry = {
      ...given.registry,
      password: sealer().seal(given.registry.password, sealContext.registryPassword(app)),
    };
  }
  return payload;
}
