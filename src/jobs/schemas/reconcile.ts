import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName } from './common.ts';

export const reconcilePayload = z.object({ app: appName }).strict();

export type ReconcilePayload = z.infer<typeof reconcilePayload>;

export const reconcileContract = defineContract<ReconcilePayload>({
  type: 'reconcile',
  summary: "Repair drift between an app's releases and the cluster; writes nothing when there is none",
  payload: reconcilePayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  supersedeKey: 'reconcile',
  // Repairs drift towards what is recorded; changes nothing an operator asked for.
  app: (p) => p.app,
  describe: (p) => `reconcile ${p.app}`,
});
