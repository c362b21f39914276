import { z } from 'zod';
import { runJobName, shortHash } from '../../../charts/index.ts';
import { defineContract } from '../contract.ts';
import { appName, envKey, processType } from './common.ts';
import { sealedValue } from './sealed-value.ts';

/** A run's `activeDeadlineSeconds` unless `--timeout` says otherwise: one day. */
export const RUN_DEFAULT_TIMEOUT_SECONDS = 86_400;
/** A finished run Job's `ttlSecondsAfterFinished` unless `--ttl` says otherwise: one hour. */
export const RUN_DEFAULT_TTL_SECONDS = 3600;
const WEEK_SECONDS = 7 * 24 * 3600;

const seconds = z
  .number('must be a whole number of seconds')
  .int('must be a whole number of seconds')
  .min(1, 'must be at least 1 second')
  .max(WEEK_SECONDS, `must be at most ${WEEK_SECONDS} seconds (7 days)`);

export const runPayload = z
  .object({
    app: appName,
    command: z
      .array(z.string().max(65_536))
      .min(1, 'give a command to run, e.g. run APP -- rake db:migrate')
      .max(1000),
    /** Extra environment for this run only; values sealed, bound to `run:{app}:{KEY}`. */
    env: z.record(envKey, sealedValue).default({}),
    /** The process type whose image and config the run uses. */
    process: processType.default('web'),
    /** Seconds the finished Job is kept before the cluster deletes it. */
    ttlSeconds: seconds.default(RUN_DEFAULT_TTL_SECONDS),
    /** The Job's `activeDeadlineSeconds`: the cluster stops a run still going after this long. */
    timeoutSeconds: seconds.default(RUN_DEFAULT_TIMEOUT_SECONDS),
    /** Start the Job and end the job: nobody follows its output (`--detach`). */
    detach: z.boolean().default(false),
    /** Interactive (stdin and a TTY). Not run by this worker build yet: refused before anything is created. */
    tty: z.boolean().default(false),
  })
  .strict();

export type RunPayload = z.infer<typeof runPayload>;

/**
 * The Job a `run` job creates: `{app}-run-{8 hex of sha256(job id)}` (charts/names.ts). Derived
 * from the job id, so a retried attempt finds the Job its first attempt created instead of making
 * another, and the CLI can print the name before any worker has run the job (`--detach`).
 */
export function runJobNameFor(app: string, jobId: string): string {
  return runJobName(app, shortHash(jobId));
}

export const runContract = defineContract<RunPayload>({
  type: 'run',
  summary: 'Run a one-off command as a Kubernetes Job; logs stream back to the caller',
  payload: runPayload,
  // One-off runs do not change the app's releases: they must not wait behind (or block) deploys.
  lane: () => undefined,
  app: (p) => p.app,
  describe: (p) => `run ${p.app} -- ${p.command.join(' ').slice(0, 80)}`,
});
