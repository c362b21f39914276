/**
 * The API's read routes that are jobs or lists of them: `GET /api/v1/jobs` (jobs:list, across the
 * queue shards) and `GET /api/v1/apps/:app/releases` (the `releases` read job, as the CLI's
 * `releases APP`: the API server holds no cluster credentials, so the worker reads the history and
 * the server waits, bounded, for its result). Query strings are validated by zod schemas, which
 * also give the OpenAPI document its parameters.
 */
import { z } from 'zod';
import { InvalidInputError, LongshoreError } from '../../core/errors.ts';
import type { JobClient } from '../../jobs/client.ts';
import { JOB_TYPES } from '../../jobs/contract.ts';
import { issuesOf } from '../../jobs/payload-checks.ts';
import { appName } from '../../jobs/schemas/common.ts';
import type { ReleaseEntry } from '../../jobs/schemas/releases.ts';
import { LISTABLE_STATES, type ListableState, waitForJob } from '../ops/jobs-ops.ts';

/** How long `GET …/releases` waits for its job by default, and at most (`?timeout=` seconds). */
export const RELEASES_WAIT_SECONDS = { default: 30, max: 120 };

/** A whole number in a query string, between `min` and `max`. */
const wholeNumber = (min: number, max: number, description: string) =>
  z
    .string()
    .regex(/^\d+$/, { message: `must be a whole number from ${min} to ${max}` })
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .meta({ description });

export const jobsQuery = z.object({
  state: z
    .string()
    .transform((value, ctx) => {
      const list = value.split(',').map((s) => s.trim());
      const bad = list.filter((s) => !(LISTABLE_STATES as readonly string[]).includes(s));
      if (bad.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown state ${bad.join(', ')} (known: ${LISTABLE_STATES.join(', ')})`,
        });
        return z.NEVER;
      }
      return list as ListableState[];
    })
    .optional()
    .meta({ description: `comma-separated: ${LISTABLE_STATES.join(', ')} (default: all)` }),
  app: appName.optional().meta({ description: "only this app's jobs" }),
  type: z.enum(JOB_TYPES).optional().meta({ description: 'only jobs of this type' }),
  limit: wholeNumber(1, 1_000, 'at most this many, newest first (default 50)').optional(),
});

export const releasesQuery = z.object({
  timeout: wholeNumber(
    1,
    RELEASES_WAIT_SECONDS.max,
    `seconds to wait for the releases job (default ${RELEASES_WAIT_SECONDS.default})`,
  ).optional(),
});

/** A route's query string, parsed: InvalidInputError with one issue per parameter otherwise. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const parsed = schema.safeParse(query ?? {});
  if (!parsed.success) throw new InvalidInputError(issuesOf(parsed.error), 'query');
  return parsed.data;
}

/** The OpenAPI query parameters of a query schema (its input side: what a client sends). */
export function queryParameters(schema: z.ZodType): Record<string, unknown>[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, Record<string, unknown>>;
  };
  return Object.entries(json.properties ?? {}).map(([name, { description, ...rest }]) => ({
    name,
    in: 'query',
    schema: rest,
    ...(description ? { description } : {}),
  }));
}

/** The job ran and failed: the answer names it and its reason (502: the fleet, not the request). */
export class ReadJobFailedError extends LongshoreError {
  readonly code = 'READ_JOB_FAILED';
}

/**
 * Enqueues a `releases` job for `app` and waits up to `timeoutMs` for its result; WaitTimeoutError
 * (504) after that, while the job goes on.
 */
export async function readReleases(
  client: JobClient,
  app: string,
  enqueuedBy: string,
  options: { timeoutMs: number; pollMs?: number },
): Promise<{ app: string; job: string; releases: ReleaseEntry[] }> {
  const job = await client.enqueue('releases', { app }, enqueuedBy);
  const final = await waitForJob(client, job.id, {}, options);
  if (final.state === 'failed') {
    throw new ReadJobFailedError(
      `the releases job ${final.id} failed: ${final.failedReason ?? 'unknown reason'}`,
    );
  }
  const releases = (final.result as { releases?: ReleaseEntry[] } | undefined)?.releases ?? [];
  return { app, job: final.id, releases };
}
