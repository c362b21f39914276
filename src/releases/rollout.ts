/**
 * Readiness of what the engine waits for, as pure functions of a live object.
 * Deployments: kubectl's `rollout status` (rollout_status.go, DeploymentStatusViewer): only once
 * the controller has seen the current spec (generation ≤ observedGeneration) do the counts mean
 * anything; then a Progressing condition with reason ProgressDeadlineExceeded is a failure, and
 * the rollout is done when every replica is updated, no old replica is left and every updated
 * replica is available.
 */

export type Readiness =
  | { state: 'ready'; message: string }
  | { state: 'waiting'; message: string; done?: number; of?: number }
  | { state: 'failed'; message: string };

interface DeploymentLike {
  metadata?: { name?: string; generation?: number };
  spec?: { replicas?: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
  };
}

/** A Deployment's replica counts, as `kubectl get deploy` and `rollout status` show them. */
export interface DeploymentCounts {
  desired: number;
  updated: number;
  ready: number;
  available: number;
}

export function deploymentCounts(deployment: DeploymentLike): DeploymentCounts {
  const status = deployment.status ?? {};
  return {
    desired: deployment.spec?.replicas ?? 1,
    updated: status.updatedReplicas ?? 0,
    ready: status.readyReplicas ?? 0,
    available: status.availableReplicas ?? 0,
  };
}

export const TIMED_OUT_REASON = 'ProgressDeadlineExceeded';

export function deploymentReadiness(deployment: DeploymentLike): Readiness {
  const name = deployment.metadata?.name ?? '?';
  const status = deployment.status ?? {};
  const generation = deployment.metadata?.generation ?? 0;
  if (generation > (status.observedGeneration ?? 0)) {
    return { state: 'waiting', message: `Waiting for deployment "${name}" spec update to be observed...` };
  }
  const progressing = status.conditions?.find((c) => c.type === 'Progressing');
  if (progressing?.reason === TIMED_OUT_REASON) {
    const detail = progressing.message ? ` (${progressing.message})` : '';
    return { state: 'failed', message: `deployment "${name}" exceeded its progress deadline${detail}` };
  }
  const desired = deployment.spec?.replicas ?? 1;
  const updated = status.updatedReplicas ?? 0;
  const replicas = status.replicas ?? 0;
  const available = status.availableReplicas ?? 0;
  if (updated < desired) {
    return {
      state: 'waiting',
      message: `Waiting for deployment "${name}" rollout to finish: ${updated} out of ${desired} new replicas have been updated...`,
      done: updated,
      of: desired,
    };
  }
  if (replicas > updated) {
    return {
      state: 'waiting',
      message: `Waiting for deployment "${name}" rollout to finish: ${replicas - updated} old replicas are pending termination...`,
      done: updated,
      of: replicas,
    };
  }
  if (available < updated) {
    return {
      state: 'waiting',
      message: `Waiting for deployment "${name}" rollout to finish: ${available} of ${updated} updated replicas are available...`,
      done: available,
      of: updated,
    };
  }
  return { state: 'ready', message: `deployment "${name}" successfully rolled out` };
}

interface ClaimLike {
  metadata?: { name?: string };
  status?: { phase?: string };
}

/** A PVC is ready once Bound; Lost is a failure (its volume is gone). */
export function claimReadiness(claim: ClaimLike): Readiness {
  const name = claim.metadata?.name ?? '?';
  const phase = claim.status?.phase ?? 'Pending';
  if (phase === 'Bound') return { state: 'ready', message: `persistentvolumeclaim "${name}" is Bound` };
  if (phase === 'Lost')
    return { state: 'failed', message: `persistentvolumeclaim "${name}" lost its volume` };
  return {
    state: 'waiting',
    message: `Waiting for persistentvolumeclaim "${name}" to be Bound (${phase})...`,
  };
}
