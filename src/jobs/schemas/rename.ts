import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName } from './common.ts';

export const renamePayload = z
  .object({ app: appName, newName: appName })
  .strict()
  .refine((p) => p.app !== p.newName, { path: ['newName'], message: 'must differ from the current name' });

export type RenamePayload = z.infer<typeof renamePayload>;

export const renameContract = defineContract<RenamePayload>({
  type: 'rename',
  summary: 'Rename an app: install under the new name, then remove the old releases (resumable)',
  payload: renamePayload,
  // Ordered in the old app's lane: every job enqueued for the old name before the rename runs first.
  lane: (p) => ({ kind: 'app', name: p.app }),
  // Jobs for the new name enqueued after the rename wait until it has finished.
  barrierLane: (p) => ({ kind: 'app', name: p.newName }),
  app: (p) => p.app,
  describe: (p) => `rename ${p.app} → ${p.newName}`,
});
