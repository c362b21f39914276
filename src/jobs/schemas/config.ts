import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName, envKey } from './common.ts';
import { sealedValue } from './sealed-value.ts';

/**
 * Plaintext env changes must fit the `config-{app}` Secret (1,048,576 bytes of data in all); the
 * worker checks the merged total, the producer refuses a single change that cannot fit.
 */
export const CONFIG_MAX_BYTES = 1_048_576;

export const configPayload = z
  .object({
    app: appName,
    /** Values sealed with the fleet key, bound to `config:{app}:{KEY}`. */
    set: z.record(envKey, sealedValue).default({}),
    unset: z.array(envKey).default([]),
    /** Roll the app's pods so they read the new values (Dokku's default; `--no-restart` skips it). */
    restart: z.boolean().default(true),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (Object.keys(p.set).length === 0 && p.unset.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['set'], message: 'set or unset at least one variable' });
    }
    for (const key of p.unset) {
      if (key in p.set)
        ctx.addIssue({ code: 'custom', path: ['unset'], message: `${key} is both set and unset` });
    }
  });

export type ConfigPayload = z.infer<typeof configPayload>;

export const configContract = defineContract<ConfigPayload>({
  type: 'config',
  summary: 'Set or unset environment variables (the config-{app} release)',
  payload: configPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) =>
    `config ${p.app}${Object.keys(p.set).length ? ` set ${Object.keys(p.set).join(',')}` : ''}${p.unset.length ? ` unset ${p.unset.join(',')}` : ''}`,
});
