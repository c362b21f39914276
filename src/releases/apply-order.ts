/**
 * The order objects are applied in: what others depend on first (Helm's InstallOrder, shortened
 * to the kinds longshore renders). A Deployment that mounts a Secret or claims a PVC finds it
 * already there, so its Pods never start in CreateContainerConfigError; Services and Ingresses
 * come after the workloads they route to. Unknown kinds go last. Deletion runs in reverse.
 */
import type { ObjectRef } from '../storage/types.ts';

export const APPLY_ORDER: readonly string[] = [
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'ServiceAccount',
  'Secret',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'Job',
  'CronJob',
  'Pod',
  'HorizontalPodAutoscaler',
  // KEDA's (CRDs): a ScaledObject after the Deployment it scales, like the HPA it drives, and after
  // the TriggerAuthentication its triggers name (keda.sh/docs/latest/concepts/authentication).
  'TriggerAuthentication',
  'ScaledObject',
  'Service',
  'Ingress',
];

export function kindRank(kind: string): number {
  const i = APPLY_ORDER.indexOf(kind);
  return i === -1 ? APPLY_ORDER.length : i;
}

/** Stable: objects of one kind keep the order the chart gave them. */
export function sortForApply<T extends Pick<ObjectRef, 'kind'>>(objects: readonly T[]): T[] {
  return objects
    .map((object, index) => ({ object, index }))
    .sort((a, b) => kindRank(a.object.kind) - kindRank(b.object.kind) || a.index - b.index)
    .map((e) => e.object);
}

export function sortForDelete<T extends Pick<ObjectRef, 'kind'>>(objects: readonly T[]): T[] {
  return sortForApply(objects).reverse();
}
