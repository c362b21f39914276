import { z } from 'zod';
import { hostPath } from '../../../rules/host-paths.ts';
import { dns1123Subdomain } from '../../../rules/name-schemas.ts';
import { defineContract } from '../contract.ts';
import { namespaceName, quantity, storageName } from './common.ts';

export const storageEntry = z
  .object({
    name: storageName,
    size: quantity,
    accessMode: z
      .enum(['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'])
      .default('ReadWriteOnce'),
    /** A StorageClass's name. */
    storageClass: dns1123Subdomain().optional(),
    /** A node directory to bind through a PersistentVolume instead of dynamic provisioning. */
    hostPath: hostPath.optional(),
    namespace: namespaceName.default('default'),
    reclaimPolicy: z.enum(['Retain', 'Delete']).default('Retain'),
  })
  .strict();

export type StorageEntry = z.infer<typeof storageEntry>;

export const storageCreatePayload = z.object({ entry: storageEntry }).strict();
export const storageDestroyPayload = z.object({ name: storageName }).strict();
export const storageStatusPayload = z.object({ name: storageName }).strict();

export const storageListPayload = z.object({}).strict();

export type StorageCreatePayload = z.infer<typeof storageCreatePayload>;
export type StorageDestroyPayload = z.infer<typeof storageDestroyPayload>;
export type StorageStatusPayload = z.infer<typeof storageStatusPayload>;
export type StorageListPayload = z.infer<typeof storageListPayload>;

export const storageCreateContract = defineContract<StorageCreatePayload>({
  type: 'storage-create',
  summary: 'Create a storage entry: the storage-{entry} release owning a PVC (and a PV for hostPath)',
  payload: storageCreatePayload,
  lane: (p) => ({ kind: 'storage', name: p.entry.name }),
  app: () => undefined,
  describe: (p) => `storage-create ${p.entry.name} ${p.entry.size} ${p.entry.accessMode}`,
});

export const storageDestroyContract = defineContract<StorageDestroyPayload>({
  type: 'storage-destroy',
  summary: 'Destroy a storage entry (its PV follows its reclaim policy)',
  payload: storageDestroyPayload,
  lane: (p) => ({ kind: 'storage', name: p.name }),
  app: () => undefined,
  describe: (p) => `storage-destroy ${p.name}`,
});

export const storageStatusContract = defineContract<StorageStatusPayload>({
  type: 'storage-status',
  summary: "Report a storage entry's PVC phase (the job's return value)",
  payload: storageStatusPayload,
  // Ordered behind pending creates and destroys of the same entry so it reports their outcome.
  lane: (p) => ({ kind: 'storage', name: p.name }),
  // A read.
  app: () => undefined,
  describe: (p) => `storage-status ${p.name}`,
});

export const storageListContract = defineContract<StorageListPayload>({
  type: 'storage-list',
  summary: "List the storage entries (the job's return value: each entry's size, namespace, phase)",
  payload: storageListPayload,
  // A read of the whole fleet's entries: nothing to order it behind (storage-status waits per entry).
  lane: () => undefined,
  app: () => undefined,
  describe: () => 'storage-list',
});
