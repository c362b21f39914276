/**
 * Pod predicates and orderings the ReplicaSet controller uses (k8s.io/kubernetes/pkg/api/v1/pod
 * podutil, pkg/controller/controller_utils.go).
 */
import type { Pod, PodCondition } from './workload-types.ts';

export function readyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/** podutil.IsPodReady. */
export function isPodReady(pod: Pod): boolean {
  return readyCondition(pod)?.status === 'True';
}

/**
 * podutil.IsPodAvailable: ready, and for minReadySeconds > 0 ready since longer than that
 * (lastTransitionTime + minReadySeconds before now).
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: Date): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = Date.parse(readyCondition(pod)?.lastTransitionTime ?? '');
  return !Number.isNaN(since) && since + minReadySeconds * 1000 < now.getTime();
}

/** controller.IsPodActive: not finished and not being deleted. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function deletionCost(pod: Pod): number {
  const raw = pod.metadata.annotations?.['controller.kubernetes.io/pod-deletion-cost'];
  const cost = raw === undefined ? 0 : Number.parseInt(raw, 10);
  return Number.isNaN(cost) ? 0 : cost;
}

const restarts = (pod: Pod): number =>
  Math.max(0, ...(pod.status?.containerStatuses ?? []).map((c) => c.restartCount));

const time = (t: string | undefined): number => (t ? Date.parse(t) || 0 : 0);

/**
 * controller.ActivePods Less: which pods a ReplicaSet deletes first when scaling down —
 * unscheduled before scheduled, Pending before Unknown before Running, not ready before ready,
 * lower pod-deletion-cost first, ready more recently first, more restarts first, newer first.
 */
export function deletionOrder(a: Pod, b: Pod): number {
  const assigned = (p: Pod) => (p.spec.nodeName ? 1 : 0);
  if (assigned(a) !== assigned(b)) return assigned(a) - assigned(b);
  const phase = (p: Pod) => PHASE_RANK[p.status?.phase ?? 'Pending'] ?? 0;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  const ready = (p: Pod) => (isPodReady(p) ? 1 : 0);
  if (ready(a) !== ready(b)) return ready(a) - ready(b);
  if (deletionCost(a) !== deletionCost(b)) return deletionCost(a) - deletionCost(b);
  if (isPodReady(a) && isPodReady(b)) {
    const readyA = time(readyCondition(a)?.lastTransitionTime);
    const readyB = time(readyCondition(b)?.lastTransitionTime);
    if (readyA !== readyB) return readyB - readyA;
  }
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  return time(b.metadata.creationTimestamp) - time(a.metadata.creationTimestamp);
}
