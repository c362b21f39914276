/**
 * `registry-login`: registry credentials for one app (`--app`, the app's lane: the same effect as
 * `deploy --registry-*` without a new image) or for the whole fleet (`--global`, the fleet lane:
 * stored once, sealed, and written into `pull-secret-{app}` of every app pulling from the server).
 */
import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName } from './common.ts';
import { sealedValue } from './sealed-value.ts';

export const registryServer = z
  .string()
  .min(1, 'is required (a registry host such as ghcr.io)')
  .max(253, 'must be at most 253 characters')
  .regex(/^\S+$/, 'must not contain spaces');

export const registryLoginPayload = z
  .object({
    server: registryServer,
    username: z.string().min(1, 'is required').max(256, 'must be at most 256 characters'),
    /** Sealed for `sealContext.registryPassword(app)` (--app) or `registryGlobalPassword(server)`. */
    password: sealedValue,
    /** The app whose credential this is; absent with `global`. */
    app: appName.optional(),
    global: z.boolean().default(false),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.global === (p.app !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['app'], message: 'give exactly one of --global or --app APP' });
    }
  });

export type RegistryLoginPayload = z.infer<typeof registryLoginPayload>;

export const registryLoginContract = defineContract<RegistryLoginPayload>({
  type: 'registry-login',
  summary: 'Set registry credentials for an app (--app) or for every app pulling from the server (--global)',
  payload: registryLoginPayload,
  lane: (p) => (p.app ? { kind: 'app', name: p.app } : { kind: 'fleet' }),
  app: (p) => p.app,
  describe: (p) => `registry:login ${p.server} ${p.username} ${p.app ? `--app ${p.app}` : '--global'}`,
});

/** `registry-logout`: forget an app's credential (--app) or the fleet's for a server (--global). */
export const registryLogoutPayload = z
  .object({ server: registryServer, app: appName.optional(), global: z.boolean().default(false) })
  .strict()
  .superRefine((p, ctx) => {
    if (p.global === (p.app !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['app'], message: 'give exactly one of --global or --app APP' });
    }
  });

export type RegistryLogoutPayload = z.infer<typeof registryLogoutPayload>;

export const registryLogoutContract = defineContract<RegistryLogoutPayload>({
  type: 'registry-logout',
  summary: "Forget an app's registry credentials (--app) or the fleet's for a server (--global)",
  payload: registryLogoutPayload,
  lane: (p) => (p.app ? { kind: 'app', name: p.app } : { kind: 'fleet' }),
  app: (p) => p.app,
  describe: (p) => `registry:logout ${p.server} ${p.app ? `--app ${p.app}` : '--global'}`,
});
