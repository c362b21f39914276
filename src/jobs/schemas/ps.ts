/**
 * `ps` (`ps:restart APP [TYPE]`, `ps:stop APP`, `ps:start APP`): process changes kept in the app's
 * spec, in the app's lane. A restart carries the time the operator asked for it (`at`, set by the
 * producer): it becomes the `kubectl.kubernetes.io/restartedAt` pod-template annotation, so a
 * retried job renders the same template and restarts nothing twice.
 */
import { z } from 'zod';
import { profileName } from '../../../rules/placement.ts';
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
  /**
   * `ps:set APP TYPE profile [NAME]`: the placement profile of one process type (rules/placement.ts);
   * `null` detaches it. The profile must exist (checked by the CLI and again by the worker).
   */
  z
    .object({
      app: appName,
      action: z.literal('set'),
      process: processType,
      key: z.literal('profile', { error: 'the only ps:set key is "profile"' }),
      value: profileName.nullable(),
    })
    .strict(),
]);

export type PsPayload = z.infer<typeof psPayload>;

export const psContract = defineContract<PsPayload>({
  type: 'ps',
  summary: 'Restart (rolling), stop or start the processes of an app',
  payload: psPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) =>
    p.action === 'set'
      ? `ps:set ${p.app} ${p.process} ${p.key} ${p.value ?? '(none)'}`
      : `ps:${p.action} ${p.app}${p.action === 'restart' && p.process ? ` ${p.process}` : ''}`,
});
