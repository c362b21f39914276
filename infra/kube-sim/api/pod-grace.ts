/**
 * Graceful deletion of Pods (pkg/registry/core/pod/strategy.go CheckGracefulDelete,
 * staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go BeforeDelete): a DELETE asks for the
 * request's gracePeriodSeconds, else the Pod's terminationGracePeriodSeconds (defaulted to 30);
 * a Pod not bound to a node, or already Succeeded or Failed, goes at once (period 0), as does a
 * period of 0 (`kubectl delete --force --grace-period=0`). Otherwise the Pod stays, with
 * deletionTimestamp = now + period and deletionGracePeriodSeconds = period, until its kubelet has
 * stopped its containers and deletes it with a period of 0. A second DELETE may only shorten
 * the period.
 */
import type { KubeObject } from '../types.ts';

export function isPod(type: { group: string; kind: string }): boolean {
  return type.group === '' && type.kind === 'Pod';
}

/** The period a DELETE of `pod` asks for (seconds). */
export function podGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = (pod.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
  const period = requested ?? spec.terminationGracePeriodSeconds ?? 30;
  // A negative request means "the object's default" (kubectl's --grace-period=-1 sends none).
  return period < 0 ? (spec.terminationGracePeriodSeconds ?? 30) : period;
}

/** deletionTimestamp for a period starting now (metav1.Time has seconds). */
export function deletionDeadline(periodSeconds: number, now = new Date()): string {
  return `${new Date(now.getTime() + periodSeconds * 1000).toISOString().slice(0, 19)}Z`;
}
