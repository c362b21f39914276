/**
 * `mounts`: mount a storage entry into an app, or unmount it (`storage:mount`, `storage:unmount`).
 * A change of the app's spec, ordered in the app's lane and deployed like domains or ports.
 */
import { z } from 'zod';
import { defineContract } from '../contract.ts';
import { appName, processType, storageName } from './common.ts';

export const mountChange = z
  .object({
    entry: storageName,
    mountPath: z
      .string({ error: 'is required (ENTRY:/path, e.g. data:/var/lib/data)' })
      .max(4096)
      .regex(/^\/[^\0:]*$/, 'must be an absolute path (without ":")')
      .refine((p) => !p.split('/').includes('..'), 'must not contain ".."'),
    subPath: z
      .string()
      .min(1, 'must not be empty (leave it out to mount the whole volume)')
      .max(4096)
      .refine((p) => !p.startsWith('/'), 'must be a relative path')
      .refine((p) => !p.split('/').includes('..'), 'must not contain ".."')
      .optional(),
    readOnly: z.boolean().default(false),
    /** Mount into this process type's Deployment only (CronJobs then do not get it). */
    process: processType.optional(),
  })
  .strict();

export const mountsPayload = z
  .object({
    app: appName,
    action: z.enum(['mount', 'unmount']),
    mount: mountChange,
  })
  .strict();

export type MountChange = z.infer<typeof mountChange>;
export type MountsPayload = z.infer<typeof mountsPayload>;

export const mountsContract = defineContract<MountsPayload>({
  type: 'mounts',
  summary: "Mount a storage entry into an app's processes and cron tasks, or unmount it",
  payload: mountsPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  app: (p) => p.app,
  describe: (p) =>
    `${p.action} ${p.app} ${p.mount.entry}:${p.mount.mountPath}${p.mount.process ? ` (${p.mount.process})` : ''}`,
});
