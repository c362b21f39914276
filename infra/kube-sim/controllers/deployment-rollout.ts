/**
 * One sync of a Deployment's rollout, as kube-controller-manager's deployment controller does it:
 * rolling.go (rolloutRolling: scale the new ReplicaSet up within maxSurge, old ones down within
 * maxUnavailable, unhealthy replicas first), recreate.go (rolloutRecreate: old ReplicaSets to zero,
 * wait for their Pods to go, then the new one at full size) and sync.go's sync/scale (paused
 * Deployments and scaling events: proportional scaling across active ReplicaSets). Each sync
 * takes one step; the writes it makes bring the Deployment back for the next.
 */
import {
  activeReplicaSets,
  actualReplicaCount,
  availableReplicaCount,
  byCreationTimestamp,
  bySizeNewer,
  bySizeOlder,
  DESIRED_REPLICAS_ANNOTATION,
  findActiveOrLatest,
  isRollingUpdate,
  isSaturated,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  replicaCount,
  replicaSetProportion,
  replicasOf,
} from './deployment-util.ts';
import type { Deployment, Pod, ReplicaSet } from './workload-types.ts';

/** What a rollout step needs from the controller: the reads and writes of sync.go. */
export interface DeploymentOps {
  /** getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when asked) and all old ones. */
  replicaSets(
    d: Deployment,
    rsList: ReplicaSet[],
    create: boolean,
  ): { newRS?: ReplicaSet; oldRSs: ReplicaSet[] };
  /** scaleReplicaSetAndRecordEvent: no write when the size is already right. */
  scaleIfNeeded(rs: ReplicaSet, replicas: number, d: Deployment): { scaled: boolean; rs: ReplicaSet };
  /** scaleReplicaSet: also refreshes the desired/max replicas annotations. */
  scale(rs: ReplicaSet, replicas: number, d: Deployment): { scaled: boolean; rs: ReplicaSet };
  syncRolloutStatus(all: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment): void;
  syncDeploymentStatus(all: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment): void;
  cleanupDeployment(oldRSs: ReplicaSet[], d: Deployment): void;
  /** The Deployment's status as last written (deploymentComplete checks it before cleanup). */
  isComplete(d: Deployment): boolean;
}

/** rolloutRolling (rolling.go). */
export function rolloutRolling(ops: DeploymentOps, d: Deployment, rsList: ReplicaSet[]): void {
  const { newRS, oldRSs } = ops.replicaSets(d, rsList, true);
  if (!newRS) return;
  const all = [...oldRSs, newRS];
  if (reconcileNewReplicaSet(ops, all, newRS, d)) {
    ops.syncRolloutStatus(all, newRS, d);
    return;
  }
  if (reconcileOldReplicaSets(ops, all, activeReplicaSets(oldRSs), newRS, d)) {
    ops.syncRolloutStatus(all, newRS, d);
    return;
  }
  if (ops.isComplete(d)) ops.cleanupDeployment(oldRSs, d);
  ops.syncRolloutStatus(all, newRS, d);
}

function reconcileNewReplicaSet(
  ops: DeploymentOps,
  all: ReplicaSet[],
  newRS: ReplicaSet,
  d: Deployment,
): boolean {
  if (replicasOf(newRS) === replicasOf(d)) return false;
  if (replicasOf(newRS) > replicasOf(d)) return ops.scaleIfNeeded(newRS, replicasOf(d), d).scaled;
  return ops.scaleIfNeeded(newRS, newRSNewReplicas(d, all, newRS), d).scaled;
}

/**
 * reconcileOldReplicaSets: scale old ReplicaSets down as far as maxUnavailable allows, counting the
 * new ReplicaSet's unavailable Pods against the budget (rolling.go explains the arithmetic).
 */
function reconcileOldReplicaSets(
  ops: DeploymentOps,
  all: ReplicaSet[],
  oldRSs: ReplicaSet[],
  newRS: ReplicaSet,
  d: Deployment,
): boolean {
  if (replicaCount(oldRSs) === 0) return false;
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const newRSUnavailable = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = replicaCount(all) - minAvailable - newRSUnavailable;
  if (maxScaledDown <= 0) return false;
  // Unhealthy replicas first, or they would block the rollout (kubernetes#16737).
  const { oldRSs: cleaned, scaledDown: cleanup } = cleanupUnhealthyReplicas(ops, oldRSs, d, maxScaledDown);
  const scaledDown = scaleDownOldReplicaSetsForRollingUpdate(ops, [...cleaned, newRS], cleaned, d);
  return cleanup + scaledDown > 0;
}

function cleanupUnhealthyReplicas(
  ops: DeploymentOps,
  oldRSs: ReplicaSet[],
  d: Deployment,
  maxCleanup: number,
): { oldRSs: ReplicaSet[]; scaledDown: number } {
  const sorted = [...oldRSs].sort(byCreationTimestamp);
  let total = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (total >= maxCleanup) break;
    const rs = sorted[i]!;
    const available = rs.status?.availableReplicas ?? 0;
    if (replicasOf(rs) === 0 || replicasOf(rs) === available) continue;
    const down = Math.min(maxCleanup - total, replicasOf(rs) - available);
    sorted[i] = ops.scaleIfNeeded(rs, replicasOf(rs) - down, d).rs;
    total += down;
  }
  return { oldRSs: sorted, scaledDown: total };
}

function scaleDownOldReplicaSetsForRollingUpdate(
  ops: DeploymentOps,
  all: ReplicaSet[],
  oldRSs: ReplicaSet[],
  d: Deployment,
): number {
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const available = availableReplicaCount(all);
  if (available <= minAvailable) return 0;
  const toScaleDown = available - minAvailable;
  let total = 0;
  for (const rs of [...oldRSs].sort(byCreationTimestamp)) {
    if (total >= toScaleDown) break;
    if (replicasOf(rs) === 0) continue;
    const down = Math.min(replicasOf(rs), toScaleDown - total);
    ops.scaleIfNeeded(rs, replicasOf(rs) - down, d);
    total += down;
  }
  return total;
}

/** rolloutRecreate (recreate.go). */
export function rolloutRecreate(
  ops: DeploymentOps,
  d: Deployment,
  rsList: ReplicaSet[],
  podsByRS: Map<string, Pod[]>,
): void {
  // Do not create the new ReplicaSet yet: scaling up before the old Pods are gone is what Recreate avoids.
  let { newRS, oldRSs } = ops.replicaSets(d, rsList, false);
  let all: (ReplicaSet | undefined)[] = [...oldRSs, newRS];
  let scaledDown = false;
  for (const rs of activeReplicaSets(oldRSs)) if (ops.scaleIfNeeded(rs, 0, d).scaled) scaledDown = true;
  if (scaledDown || oldPodsRunning(newRS, oldRSs, podsByRS)) {
    ops.syncRolloutStatus(all, newRS, d);
    return;
  }
  if (!newRS) {
    ({ newRS, oldRSs } = ops.replicaSets(d, rsList, true));
    all = [...oldRSs, newRS];
  }
  if (newRS) ops.scaleIfNeeded(newRS, replicasOf(d), d);
  if (ops.isComplete(d)) ops.cleanupDeployment(oldRSs, d);
  ops.syncRolloutStatus(all, newRS, d);
}

/** oldPodsRunning: old ReplicaSets still report Pods, or a Pod of theirs has not finished. */
function oldPodsRunning(
  newRS: ReplicaSet | undefined,
  oldRSs: ReplicaSet[],
  podsByRS: Map<string, Pod[]>,
): boolean {
  if (actualReplicaCount(oldRSs) > 0) return true;
  for (const [uid, pods] of podsByRS) {
    if (newRS && newRS.metadata.uid === uid) continue;
    if (pods.some((p) => p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded')) return true;
  }
  return false;
}

/** isScalingEvent: an active ReplicaSet was sized for a different spec.replicas. */
export function isScalingEvent(ops: DeploymentOps, d: Deployment, rsList: ReplicaSet[]): boolean {
  const { newRS, oldRSs } = ops.replicaSets(d, rsList, false);
  return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
    const desired = Number.parseInt(rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION] ?? '', 10);
    return !Number.isNaN(desired) && desired !== replicasOf(d);
  });
}

/** sync (sync.go): scaling events and paused Deployments — resize, clean up, report. */
export function syncScaling(ops: DeploymentOps, d: Deployment, rsList: ReplicaSet[]): void {
  const { newRS, oldRSs } = ops.replicaSets(d, rsList, false);
  scale(ops, d, newRS, oldRSs);
  if (d.spec.paused) ops.cleanupDeployment(oldRSs, d);
  ops.syncDeploymentStatus([...oldRSs, newRS], newRS, d);
}

/**
 * scale (sync.go): one active ReplicaSet takes the whole size; a saturated new one sends the old
 * ones to zero; otherwise (rolling updates) the difference is spread proportionally, largest
 * ReplicaSets first, leftovers to the first.
 */
function scale(ops: DeploymentOps, d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): void {
  const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
  if (activeOrLatest) {
    if (replicasOf(activeOrLatest) !== replicasOf(d)) ops.scaleIfNeeded(activeOrLatest, replicasOf(d), d);
    return;
  }
  if (isSaturated(d, newRS)) {
    for (const old of activeReplicaSets(oldRSs)) ops.scaleIfNeeded(old, 0, d);
    return;
  }
  if (!isRollingUpdate(d)) return;
  const active = activeReplicaSets([...oldRSs, newRS]);
  const allowed = replicasOf(d) > 0 ? replicasOf(d) + maxSurge(d) : 0;
  const toAdd = allowed - replicaCount(active);
  if (toAdd > 0) active.sort(bySizeNewer);
  else if (toAdd < 0) active.sort(bySizeOlder);
  let added = 0;
  const sizes = new Map<string, number>();
  for (const rs of active) {
    if (toAdd !== 0) {
      const proportion = replicaSetProportion(rs, d, toAdd, added);
      sizes.set(rs.metadata.name!, replicasOf(rs) + proportion);
      added += proportion;
    } else sizes.set(rs.metadata.name!, replicasOf(rs));
  }
  active.forEach((rs, i) => {
    let size = sizes.get(rs.metadata.name!)!;
    if (i === 0 && toAdd !== 0) size = Math.max(0, size + toAdd - added);
    ops.scale(rs, size, d);
  });
}
