/**
 * `mounts`: mount a storage entry into an app, or unmount it (`storage:mount`, `storage:unmount`).
 * A change of the app's spec, ordered in the app's lane and deployed like domains or ports; a mount
 * also holds the entry's lane (below).
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
  // A mount also holds its entry's lane (docs/ordering.md, "Barriers"): a storage:destroy of the
  // entry runs in that lane, so the two run one after the other in the order they were enqueued,
  // and whichever runs second sees what the first did (the destroy refuses while the app mounts
  // the entry; the mount refuses an entry that no longer exists). Without it, the destroy could
  // find no app mounting the entry while the mount, in the app's lane, deploys the claim.
  // An unmount needs no barrier: it only takes a claim out of the app, and the app release is
  // rolled out without it before the spec that no longer mounts it is saved, so a destroy running
  // meanwhile either still sees the mount (and refuses, which was true when it looked) or finds a
  // spec whose pods no longer use the claim. It can never leave a mount of a destroyed entry.
  barrierLane: (p) => (p.action === 'mount' ? { kind: 'storage', name: p.mount.entry } : undefined),
  app: (p) => p.app,
  describe: (p) =>
    `${p.action} ${p.app} ${p.mount.entry}:${p.mount.mountPath}${p.mount.process ? ` (${p.mount.process})` : ''}`,
});
