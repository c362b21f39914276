import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName } from './common.ts';

export const destroyPayload = z
  .object({
    app: appName,
    /** Also destroy the storage entries the app's spec mounts (one storage-destroy job each). */
    withStorage: z.boolean().default(false),
  })
  .strict();

export type DestroyPayload = z.infer<typeof destroyPayload>;

export const destroyContract = defineContract<DestroyPayload>({
  type: 'destroy',
  summary: 'Uninstall every release of an app and delete its record',
  payload: destroyPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) => `destroy ${p.app}${p.withStorage ? ' --with-storage' : ''}`,
});
