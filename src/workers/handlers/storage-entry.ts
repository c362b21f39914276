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

/**
 * deployedEntry for a job that another worker's storage:create may just have preceded (the mount's
 * barrier orders them, but this worker's history cache learns of the new release through its
 * watch, a moment later): when the cache shows no deployed release, it is looked at again every
 * 50 ms for up to `graceMs` before the entry counts as missing. Only the refusal pays the wait.
 */
export async function deployedEntryCaughtUp(
  cluster: Cluster,
  entry: string,
  graceMs = 2_000,
): Promise<StorageChartValues | undefined> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const values = await deployedEntry(cluster, entry);
    if (values || Date.now() >= deadline) return values;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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

/**
 * What uses the entry's claim right now, read from the API server: Pods (running or not) and
 * Deployments (a stopped app keeps its claim in a template with 0 replicas) in the claim's
 * namespace, as `Pod shop-web-6c9f-x2x7q`. A rollout that mounted the claim but failed before its
 * spec was saved shows here while no saved spec names the entry.
 */
export async function claimUsers(cluster: Cluster, namespace: string, entry: string): Promise<string[]> {
  const claim = storageObjectName(entry);
  const uses = (volumes: k8s.V1Volume[] | undefined) =>
    (volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === claim);
  const [pods, deployments] = await Promise.all([
    withKubeRetry(`list Pods ${namespace}`, () => cluster.kube.core.listNamespacedPod({ namespace })),
    withKubeRetry(`list Deployments ${namespace}`, () =>
      cluster.kube.apps.listNamespacedDeployment({ namespace }),
    ),
  ]);
  return [
    ...deployments.items
      .filter((d) => !d.metadata?.deletionTimestamp && uses(d.spec?.template.spec?.volumes))
      .map((d) => `Deployment ${d.metadata?.name}`),
    ...pods.items
      .filter((p) => !p.metadata?.deletionTimestamp && uses(p.spec?.volumes))
      .map((p) => `Pod ${p.metadata?.name}`),
  ].sort();
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
