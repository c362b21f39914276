/**
 * Why a rollout is stuck, in the pods' own words: when a wait fails or times out, the engine lists
 * the pods of each Deployment it waited for (one LIST per Deployment, only on failure) and reports
 * containers that wait for something other than being created (ErrImagePull, ImagePullBackOff,
 * CreateContainerConfigError, CrashLoopBackOff…), containers that exited non-zero, and pods that
 * cannot be scheduled. So a job fails with "ErrImagePull: … not found", not just "timed out".
 */
import * as k8s from '@kubernetes/client-node';
import type { ObjectRef } from '../storage/types.ts';
import type { LiveObjects } from './live-objects.ts';

/** Waiting reasons that are normal progress, not a problem. */
const NORMAL_WAITING = new Set(['ContainerCreating', 'PodInitializing']);
/** At most this many distinct problems are reported (a 50-replica Deployment fails 50 times alike). */
const MAX_PROBLEMS = 3;

type Deployment = k8s.V1Deployment;

export function podProblemsOf(pods: k8s.V1Pod[]): string[] {
  const seen = new Map<string, string>();
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '?';
    const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
    for (const s of statuses) {
      const waiting = s.state?.waiting;
      const terminated = s.state?.terminated ?? s.lastState?.terminated;
      let problem: string | undefined;
      if (waiting?.reason && !NORMAL_WAITING.has(waiting.reason))
        problem = `${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`;
      else if (terminated && terminated.exitCode !== 0)
        problem = `exited ${terminated.exitCode}${terminated.reason ? ` (${terminated.reason})` : ''}`;
      if (problem && !seen.has(problem)) seen.set(problem, `pod ${name} container ${s.name}: ${problem}`);
    }
    const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (scheduled?.status === 'False') {
      const problem = `${scheduled.reason ?? 'Unschedulable'}${scheduled.message ? `: ${scheduled.message}` : ''}`;
      if (!seen.has(problem)) seen.set(problem, `pod ${name}: ${problem}`);
    }
  }
  return [...seen.values()].slice(0, MAX_PROBLEMS);
}

/** Best effort: a diagnosis that fails (RBAC, API errors) adds nothing rather than hiding the wait's own error. */
export async function diagnoseRollouts(
  kc: k8s.KubeConfig,
  live: LiveObjects,
  refs: ObjectRef[],
): Promise<string[]> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const problems: string[] = [];
  for (const ref of refs) {
    if (ref.kind !== 'Deployment' || !ref.namespace) continue;
    try {
      const deployment = (await live.get(ref)) as Deployment | undefined;
      const labels = deployment?.spec?.selector?.matchLabels;
      if (!labels) continue;
      const labelSelector = Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      const pods = await core.listNamespacedPod({ namespace: ref.namespace, labelSelector });
      problems.push(...podProblemsOf(pods.items));
    } catch {
      // Diagnosis only.
    }
  }
  return [...new Set(problems)].slice(0, MAX_PROBLEMS);
}
