/**
 * What the storage handlers read about an entry: its release's deployed values (what
 * `storage:create` installed), its live claim, and the cluster's StorageClasses. Reads only.
 */
import type * as k8s from '@kubernetes/client-node';
import { type StorageChartValues, storageObjectName } from '../../../charts/index.ts';
import { releaseNames } from '../../apps/releases.ts';
import { isNotFound } from '../../kube/errors.ts';
import { withKubeRetry } from '../../kube/retry.ts';
import type { Cluster } from '../cluster.ts';

export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

export interface StorageClassInfo {
  name: string;
  isDefault: boolean;
  allowVolumeExpansion: boolean;
  volumeBindingMode: string;
}

/** The values of the entry's deployed `storage-{entry}` revision, or undefined when it has none. */
export async function deployedEntry(
  cluster: Cluster,
  entry: string,
): Promise<StorageChartValues | undefined> {
  const release = releaseNames.storage(entry);
  const deployed = cluster.history.deployed(release);
  if (!deployed) return undefined;
  const content = await cluster.history.read(release, deployed.revision);
  return content.values as unknown as StorageChartValues;
}

/** Every entry with a deployed release, by name. */
export function deployedEntryNames(cluster: Cluster): string[] {
  const prefix = releaseNames.storage('');
  return cluster.history
    .releases()
    .filter((r) => r.startsWith(prefix) && cluster.history.deployed(r) !== undefined)
    .map((r) => r.slice(prefix.length));
}

export async function readClaim(
  cluster: Cluster,
  namespace: string,
  entry: string,
): Promise<k8s.V1PersistentVolumeClaim | undefined> {
  const name = storageObjectName(entry);
  return withKubeRetry(`read PersistentVolumeClaim ${namespace}/${name}`, async () => {
    try {
      return await cluster.kube.core.readNamespacedPersistentVolumeClaim({ namespace, name });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  });
}

export async function storageClasses(cluster: Cluster): Promise<StorageClassInfo[]> {
  const list = await withKubeRetry('list StorageClasses', () =>
    cluster.kube.objects.list<k8s.V1StorageClass>('storage.k8s.io/v1', 'StorageClass'),
  );
  return list.items
    .map((sc) => ({
      name: sc.metadata?.name ?? '',
      isDefault: sc.metadata?.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true',
      allowVolumeExpansion: sc.allowVolumeExpansion === true,
      volumeBindingMode: sc.volumeBindingMode ?? 'Immediate',
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `Bound, 1Gi` — the phase and capacity a claim reports (requested size while unbound). */
export function claimState(claim: k8s.V1PersistentVolumeClaim | undefined): {
  phase: string;
  capacity?: string;
  requested?: string;
  storageClass?: string;
  volume?: string;
} {
  if (!claim) return { phase: 'Missing' };
  const capacity = claim.status?.capacity?.storage;
  const requested = claim.spec?.resources?.requests?.storage;
  return {
    phase: claim.status?.phase ?? 'Pending',
    ...(capacity !== undefined ? { capacity: String(capacity) } : {}),
    ...(requested !== undefined ? { requested: String(requested) } : {}),
    ...(claim.spec?.storageClassName !== undefined ? { storageClass: claim.spec.storageClassName } : {}),
    ...(claim.spec?.volumeName ? { volume: claim.spec.volumeName } : {}),
  };
}
