/**
 * The StorageObjectInUseProtection admission plugin
 * (plugin/pkg/admission/storage/storageobjectinuseprotection): every new PersistentVolumeClaim gets
 * the `kubernetes.io/pvc-protection` finalizer and every new PersistentVolume
 * `kubernetes.io/pv-protection`, so that deleting one in use leaves it Terminating until the
 * protection controllers (controllers/storage-protection.ts) see it unused.
 */
import type { KubeObject } from '../types.ts';

export const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION = 'kubernetes.io/pv-protection';

export function addProtectionFinalizer(object: KubeObject, finalizer: string): void {
  const finalizers = object.metadata.finalizers ?? [];
  if (!finalizers.includes(finalizer)) object.metadata.finalizers = [...finalizers, finalizer];
}
