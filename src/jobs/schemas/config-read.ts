/**
 * `config-read`: a read job answering with an app's config values (`config:show`, `config:get`),
 * sealed for the CLI process that asked (src/jobs/reader-sealing.ts): the answer sits in Redis as
 * the job's return value, so it is never plaintext there, and not even LONGSHORE_SECRET opens it.
 * It runs in the app's lane, so it reads what the jobs enqueued before it (a `config:set`) made.
 */
import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { readerPublicKey } from '../reader-sealing.ts';
import { appName, envKey } from './common.ts';

export const configReadPayload = z
  .object({
    app: appName,
    /** The asking CLI's ephemeral X25519 public key: the answer is sealed for it. */
    readerKey: readerPublicKey,
    /** Only these variables (`config:get`); absent: all of them. */
    keys: z.array(envKey).min(1, 'name at least one variable, or leave keys out for all').optional(),
  })
  .strict();

export type ConfigReadPayload = z.infer<typeof configReadPayload>;

export const configReadContract = defineContract<ConfigReadPayload>({
  type: 'config-read',
  summary: "Read an app's config values, sealed for the CLI that asked (config:show, config:get)",
  payload: configReadPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) => `config-read ${p.app}${p.keys ? ` ${p.keys.join(',')}` : ''}`,
});

/** Where an answer is bound (reader-sealing's context): an answer for one app opens for no other. */
export const configReadContext = (app: string) => `config-read:${app}`;

/** What the sealed answer holds, as JSON. */
export interface ConfigReadAnswer {
  /** The variables, by name (the requested ones that exist, with `keys`). */
  config: Record<string, string>;
  /** Variables whose live value no longer matches what was deployed (changed or removed by hand). */
  lost: { key: string; reason: string }[];
}
