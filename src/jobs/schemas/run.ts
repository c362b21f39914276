import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { sealedValue } from '../sealing.ts';
import { appName, envKey, processType } from './common.ts';

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
    ttlSeconds: z
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 3600)
      .default(3600),
    tty: z.boolean().default(false),
  })
  .strict();

export type RunPayload = z.infer<typeof runPayload>;

export const runContract = defineContract<RunPayload>({
  type: 'run',
  summary: 'Run a one-off command as a Kubernetes Job; logs stream back to the caller',
  payload: runPayload,
  // One-off runs do not change the app's releases: they must not wait behind (or block) deploys.
  lane: () => undefined,
  app: (p) => p.app,
  describe: (p) => `run ${p.app} -- ${p.command.join(' ').slice(0, 80)}`,
});
