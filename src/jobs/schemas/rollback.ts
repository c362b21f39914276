/** `rollback` (`releases:rollback APP [REVISION]`): restore an earlier app revision, in the app's lane. */
import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName } from './common.ts';

export const rollbackPayload = z
  .object({
    app: appName,
    /** The app release revision to restore; absent: the deployed revision before the current one. */
    revision: z.number().int().min(1).optional(),
  })
  .strict();

export type RollbackPayload = z.infer<typeof rollbackPayload>;

export const rollbackContract = defineContract<RollbackPayload>({
  type: 'rollback',
  summary: 'Restore an earlier app revision (objects, spec and config) as a new revision',
  payload: rollbackPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) => `rollback ${p.app}${p.revision !== undefined ? ` to revision ${p.revision}` : ''}`,
});
