/**
 * Values of the storage chart: one storage entry. Entries are fleet-wide (any app in the entry's
 * namespace may mount it), so nothing here names an app.
 */
import { z } from 'zod';
import { STORAGE_NAME_MAX } from '../../rules/app-names.ts';
import { hostPath } from '../../rules/host-paths.ts';
import { dns1123Label, dns1123Subdomain } from '../../rules/name-schemas.ts';
import { byteQuantity } from '../../rules/quantities.ts';
import { namespaceName } from '../schemas.ts';

export const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] as const;

export const storageValues = z.strictObject({
  entry: dns1123Label({ max: STORAGE_NAME_MAX, required: 'is required (a storage entry name)' }),
  namespace: namespaceName,
  size: byteQuantity,
  accessMode: z.enum(ACCESS_MODES),
  /** The StorageClass to provision from; absent: the cluster's default. Ignored with hostPath. */
  storageClassName: dns1123Subdomain().optional(),
  /** A node directory bound through a pre-bound PersistentVolume instead of a provisioner. */
  hostPath: hostPath.optional(),
  reclaimPolicy: z.enum(['Retain', 'Delete']),
});

export type StorageChartValues = z.infer<typeof storageValues>;
