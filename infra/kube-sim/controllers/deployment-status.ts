/**
 * The Deployment status the controller writes: calculateStatus (sync.go), the Progressing
 * condition's estimate of progress (progress.go syncRolloutStatus), and the condition helpers of
 * deployment/util. Pure functions of the Deployment, its ReplicaSets and the time.
 */
import { timestamp } from '../api/metadata.ts';
import { clone } from '../types.ts';
import {
  actualReplicaCount,
  availableReplicaCount,
  hasProgressDeadline,
  maxUnavailable,
  readyReplicaCount,
  replicaCount,
  replicasOf,
} from './deployment-util.ts';
import type {
  ConditionStatus,
  Deployment,
  DeploymentCondition,
  DeploymentStatus,
  ReplicaSet,
} from './workload-types.ts';

// Condition reasons (deployment/util).
export const NEW_RS_REASON = 'NewReplicaSetCreated';
export const FOUND_NEW_RS_REASON = 'FoundNewReplicaSet';
export const FAILED_RS_CREATE_REASON = 'ReplicaSetCreateError';
export const RS_UPDATED_REASON = 'ReplicaSetUpdated';
export const NEW_RS_AVAILABLE_REASON = 'NewReplicaSetAvailable';
export const TIMED_OUT_REASON = 'ProgressDeadlineExceeded';
export const PAUSED_REASON = 'DeploymentPaused';
export const RESUMED_REASON = 'DeploymentResumed';
export const MIN_AVAILABLE_REASON = 'MinimumReplicasAvailable';
export const MIN_UNAVAILABLE_REASON = 'MinimumReplicasUnavailable';

export function newCondition(
  type: string,
  status: ConditionStatus,
  reason: string,
  message: string,
  now: Date,
): DeploymentCondition {
  const t = timestamp(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

export function getCondition(
  status: DeploymentStatus | undefined,
  type: string,
): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  const rest = (status.conditions ?? []).filter((c) => c.type !== type);
  if (rest.length > 0) status.conditions = rest;
  else delete status.conditions;
}

/**
 * SetDeploymentCondition: nothing happens when status and reason are unchanged; otherwise the
 * condition is replaced — and moves to the end of the list, as upstream's filter-and-append does —
 * keeping lastTransitionTime when only the reason changed.
 */
export function setCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = getCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const next = { ...condition };
  if (current && current.status === condition.status) next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

/** calculateStatus (sync.go): counts from the ReplicaSets and the Available condition. */
export function calculateStatus(
  allRSs: (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
  now: Date,
): DeploymentStatus {
  const available = availableReplicaCount(allRSs);
  const unavailable = Math.max(0, replicaCount(allRSs) - available);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation ?? 0,
    replicas: actualReplicaCount(allRSs),
    updatedReplicas: actualReplicaCount([newRS]),
    readyReplicas: readyReplicaCount(allRSs),
    availableReplicas: available,
    unavailableReplicas: unavailable,
    ...(d.status?.conditions ? { conditions: clone(d.status.conditions) } : {}),
    ...(d.status?.collisionCount !== undefined ? { collisionCount: d.status.collisionCount } : {}),
  };
  if (available >= replicasOf(d) - maxUnavailable(d)) {
    setCondition(
      status,
      newCondition('Available', 'True', MIN_AVAILABLE_REASON, 'Deployment has minimum availability.', now),
    );
  } else {
    setCondition(
      status,
      newCondition(
        'Available',
        'False',
        MIN_UNAVAILABLE_REASON,
        'Deployment does not have minimum availability.',
        now,
      ),
    );
  }
  return status;
}

/** DeploymentComplete: every desired replica updated and available, and the spec observed. */
export function deploymentComplete(d: Deployment, status: DeploymentStatus): boolean {
  const desired = replicasOf(d);
  return (
    (status.updatedReplicas ?? 0) === desired &&
    (status.replicas ?? 0) === desired &&
    (status.availableReplicas ?? 0) === desired &&
    (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  );
}

/** DeploymentProgressing: more updated, ready or available replicas, or fewer old ones. */
export function deploymentProgressing(d: Deployment, next: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (next.replicas ?? 0) - (next.updatedReplicas ?? 0);
  return (
    (next.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (next.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (next.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** When the Progressing condition's deadline passes (ms since epoch), if one applies. */
function deadlineOf(d: Deployment, condition: DeploymentCondition): number {
  return Date.parse(condition.lastUpdateTime ?? '') + (d.spec.progressDeadlineSeconds ?? 0) * 1000;
}

/**
 * DeploymentTimedOut: no progress since the Progressing condition's lastUpdateTime for
 * progressDeadlineSeconds. A completed rollout never times out; a timed-out one stays so.
 */
export function deploymentTimedOut(d: Deployment, status: DeploymentStatus, now: Date): boolean {
  if (!hasProgressDeadline(d)) return false;
  const condition = getCondition(status, 'Progressing');
  if (!condition) return false;
  if (condition.reason === NEW_RS_AVAILABLE_REASON) return false;
  if (condition.reason === TIMED_OUT_REASON) return true;
  return deadlineOf(d, condition) < now.getTime();
}

/**
 * syncRolloutStatus (progress.go) minus the write: the status with Progressing estimated and the
 * ReplicaFailure condition carried over from the ReplicaSets.
 */
export function rolloutStatus(
  allRSs: (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
  now: Date,
): DeploymentStatus {
  const status = calculateStatus(allRSs, newRS, d, now);
  if (!hasProgressDeadline(d)) removeCondition(status, 'Progressing');
  const current = getCondition(d.status, 'Progressing');
  // A resync of a finished rollout (one ReplicaSet, already NewReplicaSetAvailable) estimates nothing.
  const isComplete =
    status.replicas === status.updatedReplicas && current?.reason === NEW_RS_AVAILABLE_REASON;
  if (hasProgressDeadline(d) && !isComplete) {
    if (deploymentComplete(d, status)) {
      const msg = newRS
        ? `ReplicaSet "${newRS.metadata.name}" has successfully progressed.`
        : `Deployment "${d.metadata.name}" has successfully progressed.`;
      setCondition(status, newCondition('Progressing', 'True', NEW_RS_AVAILABLE_REASON, msg, now));
    } else if (deploymentProgressing(d, status)) {
      const msg = newRS
        ? `ReplicaSet "${newRS.metadata.name}" is progressing.`
        : `Deployment "${d.metadata.name}" is progressing.`;
      // Progress moves lastUpdateTime even when the reason stays: replace the condition outright,
      // keeping lastTransitionTime while it stays True.
      const condition = newCondition('Progressing', 'True', RS_UPDATED_REASON, msg, now);
      if (current) {
        if (current.status === 'True') condition.lastTransitionTime = current.lastTransitionTime;
        removeCondition(status, 'Progressing');
      }
      setCondition(status, condition);
    } else if (deploymentTimedOut(d, status, now)) {
      const msg = newRS
        ? `ReplicaSet "${newRS.metadata.name}" has timed out progressing.`
        : `Deployment "${d.metadata.name}" has timed out progressing.`;
      setCondition(status, newCondition('Progressing', 'False', TIMED_OUT_REASON, msg, now));
    }
  }
  const failure = replicaFailure(allRSs, newRS);
  if (failure) setCondition(status, failure);
  else removeCondition(status, 'ReplicaFailure');
  return status;
}

/** getReplicaFailures: the new ReplicaSet's ReplicaFailure condition first, else an old one's. */
function replicaFailure(
  allRSs: (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
): DeploymentCondition | undefined {
  const find = (rs: ReplicaSet | undefined) =>
    rs?.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
  const cond = find(newRS) ?? allRSs.map(find).find((c) => c !== undefined);
  if (!cond) return undefined;
  // ReplicaSetToDeploymentCondition: lastUpdateTime is the ReplicaSet's lastTransitionTime.
  return {
    type: cond.type,
    status: cond.status,
    lastUpdateTime: cond.lastTransitionTime,
    lastTransitionTime: cond.lastTransitionTime,
    ...(cond.reason !== undefined ? { reason: cond.reason } : {}),
    ...(cond.message !== undefined ? { message: cond.message } : {}),
  };
}

/**
 * requeueStuckDeployment: ms until the deadline check is due for a rollout in progress, or
 * undefined when none is needed. Upstream re-queues at lastUpdateTime + deadline + 1 s, and in the
 * last second polls with its rate limiter; this fires once just after the deadline instead.
 */
export function stuckRecheckDelay(d: Deployment, status: DeploymentStatus, now: Date): number | undefined {
  const current = getCondition(d.status, 'Progressing');
  if (!hasProgressDeadline(d) || !current) return undefined;
  if (deploymentComplete(d, status) || current.reason === TIMED_OUT_REASON) return undefined;
  const after = deadlineOf(d, current) - now.getTime();
  if (Number.isNaN(after)) return undefined;
  return after < 1000 ? Math.max(0, after) + 50 : after + 1000;
}

/**
 * A status as the API returns it: Go's `omitempty` drops zero counts (DeploymentStatus), so the
 * stored object has no `replicas: 0` that a real cluster would not show.
 */
export function withoutZeroCounts(status: DeploymentStatus): DeploymentStatus {
  const out: DeploymentStatus = {};
  for (const key of [
    'observedGeneration',
    'replicas',
    'updatedReplicas',
    'readyReplicas',
    'availableReplicas',
    'unavailableReplicas',
  ] as const) {
    const v = status[key];
    if (v) out[key] = v;
  }
  if (status.conditions?.length) out.conditions = status.conditions;
  if (status.collisionCount !== undefined) out.collisionCount = status.collisionCount;
  return out;
}
