/**
 * `ps` (`ps:restart APP [TYPE]`, `ps:stop APP`, `ps:start APP`): process changes kept in the app's
 * spec, in the app's lane. A restart carries the time the operator asked for it (`at`, set by the
 * producer): it becomes the `kubectl.kubernetes.io/restartedAt` pod-template annotation, so a
 * retried job renders the same template and restarts nothing twice.
 */
import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName, processType } from './common.ts';

export const psPayload = z.discriminatedUnion('action', [
  z
    .object({
      app: appName,
      action: z.literal('restart'),
      /** Only this process type; absent: every process type. */
      process: processType.optional(),
      at: z.iso.datetime({ message: 'must be an ISO 8601 UTC time such as 2026-01-02T03:04:05Z' }),
    })
    .strict(),
  z.object({ app: appName, action: z.literal('stop') }).strict(),
  z.object({ app: appName, action: z.literal('start') }).strict(),
]);

export type PsPayload = z.infer<typeof psPayload>;

export const psContract = defineContract<PsPayload>({
  type: 'ps',
  summary: 'Restart (rolling), stop or start the processes of an app',
  payload: psPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) => `ps:${p.action} ${p.app}${p.action === 'restart' && p.process ? ` ${p.process}` : ''}`,
});
