/**
 * Storage defaults: PersistentVolumeClaims and PersistentVolumes (pkg/apis/core/v1/defaults.go,
 * the PV strategy's PrepareForCreate) and StorageClasses (pkg/apis/storage/v1/defaults.go).
 */
import {
  type DefaultingContext,
  ensureObject,
  type JsonObject,
  objectAt,
  setDefault,
  timestamp,
} from './context.ts';

export function defaultPVC(pvc: JsonObject, ctx: DefaultingContext): void {
  setDefault(ensureObject(pvc, 'spec'), 'volumeMode', 'Filesystem');
  if (!ctx.old) setDefault(ensureObject(pvc, 'status'), 'phase', 'Pending');
}

/** Static PVs are kept (Retain) unless they say otherwise; a new PV starts Pending. */
export function defaultPV(pv: JsonObject, ctx: DefaultingContext): void {
  const spec = ensureObject(pv, 'spec');
  setDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain');
  setDefault(spec, 'volumeMode', 'Filesystem');
  const hostPath = objectAt(spec, 'hostPath');
  if (hostPath && hostPath.type === undefined) hostPath.type = '';
  if (!ctx.old) {
    const status = ensureObject(pv, 'status');
    setDefault(status, 'phase', 'Pending');
    setDefault(status, 'lastPhaseTransitionTime', timestamp(ctx.now?.() ?? new Date()));
  }
}

export function defaultStorageClass(sc: JsonObject): void {
  setDefault(sc, 'reclaimPolicy', 'Delete');
  setDefault(sc, 'volumeBindingMode', 'Immediate');
}
