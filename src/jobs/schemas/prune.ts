import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName } from './common.ts';

export const prunePayload = z
  .object({
    app: appName.optional(),
    /** List what would be removed, remove nothing. */
    dryRun: z.boolean().default(false),
  })
  .strict();

export type PrunePayload = z.infer<typeof prunePayload>;

export const pruneContract = defineContract<PrunePayload>({
  type: 'prune',
  summary:
    'Remove leaked pull secrets, history over the limit, orphan chunks, finished run Jobs and releases of apps that are gone',
  payload: prunePayload,
  lane: (p) => (p.app ? { kind: 'app', name: p.app } : { kind: 'fleet' }),
  app: (p) => p.app,
  describe: (p) => `${p.app ? `prune ${p.app}` : 'prune (all apps)'}${p.dryRun ? ' (dry run)' : ''}`,
});
