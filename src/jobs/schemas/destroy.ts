import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName } from './common.ts';

export const destroyPayload = z.object({ app: appName }).strict();

export type DestroyPayload = z.infer<typeof destroyPayload>;

export const destroyContract = defineContract<DestroyPayload>({
  type: 'destroy',
  summary: 'Uninstall every release of an app and delete its record',
  payload: destroyPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) => `destroy ${p.app}`,
});
