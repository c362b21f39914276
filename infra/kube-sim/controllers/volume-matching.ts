/**
 * Which PersistentVolume a claim may bind to, and which StorageClass is the default, as the
 * PersistentVolume controller decides (pkg/controller/volume/persistentvolume: index.go
 * findBestMatchForClaim, pv_controller.go checkVolumeSatisfyClaim; component-helpers
 * storage/volume GetDefaultClass, CheckAccessModes, IsVolumeBoundToClaim).
 */
import { typeKey } from '../api/service.ts';
import { findByKind } from '../resources.ts';
import { matchesLabelSelectorObject } from '../selectors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import { parseQuantity } from '../validation/quantity.ts';

export const PVC = findByKind('v1', 'PersistentVolumeClaim')!;
export const PV = findByKind('v1', 'PersistentVolume')!;
export const STORAGE_CLASS = findByKind('storage.k8s.io/v1', 'StorageClass')!;
export const PVC_KEY = typeKey(PVC);
export const PV_KEY = typeKey(PV);
export const STORAGE_CLASS_KEY = typeKey(STORAGE_CLASS);

export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

export interface ClaimRef {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
}

export interface ClaimSpec {
  accessModes?: string[];
  resources?: { requests?: Record<string, string> };
  storageClassName?: string | null;
  volumeName?: string;
  volumeMode?: string;
  selector?: {
    matchLabels?: Record<string, string>;
    matchExpressions?: { key: string; operator: string; values?: string[] }[];
  };
}

export interface VolumeSpec {
  accessModes?: string[];
  capacity?: Record<string, string>;
  claimRef?: ClaimRef;
  storageClassName?: string;
  volumeMode?: string;
  persistentVolumeReclaimPolicy?: string;
}

export interface StorageClass extends KubeObject {
  provisioner?: string;
  reclaimPolicy?: string;
  volumeBindingMode?: string;
  mountOptions?: string[];
}

export const claimSpec = (claim: KubeObject) => (claim.spec ?? {}) as ClaimSpec;
export const volumeSpec = (volume: KubeObject) => (volume.spec ?? {}) as VolumeSpec;
export const phaseOf = (object: KubeObject) => ((object.status ?? {}) as { phase?: string }).phase;

const requestedBytes = (claim: KubeObject) =>
  parseQuantity(claimSpec(claim).resources?.requests?.storage) ?? 0;
const capacityBytes = (volume: KubeObject) => parseQuantity(volumeSpec(volume).capacity?.storage) ?? 0;

/** GetPersistentVolumeClaimClass: the claim's class, "" when it names none. */
export const claimClass = (claim: KubeObject) => claimSpec(claim).storageClassName ?? '';

/** IsVolumeBoundToClaim: claimRef names this claim (and its uid, when the ref carries one). */
export function refersTo(ref: ClaimRef | undefined, claim: KubeObject): boolean {
  if (!ref) return false;
  if (ref.name !== claim.metadata.name || ref.namespace !== claim.metadata.namespace) return false;
  return !ref.uid || ref.uid === claim.metadata.uid;
}

/** checkVolumeSatisfyClaim, with upstream's reasons. */
export function volumeMismatch(volume: KubeObject, claim: KubeObject): string | undefined {
  if (volume.metadata.deletionTimestamp) return `the volume is marked for deletion "${volume.metadata.name}"`;
  if (capacityBytes(volume) < requestedBytes(claim)) return 'requested PV is too small';
  if ((volumeSpec(volume).storageClassName ?? '') !== claimClass(claim))
    return 'storageClassName does not match';
  if ((volumeSpec(volume).volumeMode ?? 'Filesystem') !== (claimSpec(claim).volumeMode ?? 'Filesystem'))
    return 'incompatible volumeMode';
  const modes = volumeSpec(volume).accessModes ?? [];
  if (!(claimSpec(claim).accessModes ?? []).every((m) => modes.includes(m))) return 'incompatible accessMode';
  return undefined;
}

/**
 * findBestMatchForClaim: a volume pre-bound to the claim wins; otherwise the smallest unclaimed,
 * available volume that satisfies it (class, size, mode, access modes, label selector).
 */
export function findBestMatch(store: ObjectStore, claim: KubeObject): KubeObject | undefined {
  let best: KubeObject | undefined;
  const selector = claimSpec(claim).selector;
  for (const volume of store.list(PV_KEY)) {
    const ref = volumeSpec(volume).claimRef;
    if (ref && !refersTo(ref, claim)) continue;
    if (volumeMismatch(volume, claim)) continue;
    if (ref) return volume;
    const phase = phaseOf(volume);
    if (phase === 'Released' || phase === 'Failed') continue;
    if (selector && !matchesLabelSelectorObject(selector, volume.metadata.labels)) continue;
    if (!best || capacityBytes(volume) < capacityBytes(best)) best = volume;
  }
  return best;
}

/**
 * GetDefaultClass: of the classes annotated as default, the newest (then the first by name);
 * failing that, the class `settings.defaultStorageClass` names, if it exists.
 */
export function defaultStorageClass(
  store: ObjectStore,
  configured: string | undefined,
): StorageClass | undefined {
  const classes = store.list(STORAGE_CLASS_KEY) as StorageClass[];
  const annotated = classes
    .filter((c) => c.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true')
    .sort(
      (a, b) =>
        (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') ||
        a.metadata.name!.localeCompare(b.metadata.name!),
    );
  return annotated[0] ?? classes.find((c) => c.metadata.name === configured);
}

/** The claim a Pod mounts (spec.volumes[].persistentVolumeClaim.claimName). */
export function claimNamesOf(pod: KubeObject): string[] {
  const volumes = ((pod.spec ?? {}) as { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] })
    .volumes;
  return (volumes ?? []).flatMap((v) =>
    v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : [],
  );
}
