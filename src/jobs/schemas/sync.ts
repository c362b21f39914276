import { z } from 'zod';
import { defineContract } from '../contract.ts';

export const syncPayload = z.object({}).strict();

export type SyncPayload = z.infer<typeof syncPayload>;

export const syncContract = defineContract<SyncPayload>({
  type: 'sync',
  summary: 'Scheduled: enqueue a reconcile for every known app',
  payload: syncPayload,
  lane: () => ({ kind: 'fleet' }),
  // A sync still queued when the next one arrives (no worker running, a backlog) is replaced by it.
  supersedeKey: 'sync',
  // Only enqueues reconciles.
  app: () => undefined,
  describe: () => 'sync',
});
