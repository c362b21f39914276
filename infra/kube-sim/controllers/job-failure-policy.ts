/**
 * Matching a failed Pod against a Job's `spec.podFailurePolicy`
 * (pkg/controller/job/pod_failure_policy.go matchPodFailurePolicy, 1.33): rules in order, the
 * first whose requirement holds decides. `onExitCodes` looks at terminated containers (regular
 * ones first, then init containers) with a non-zero exit code, so NotIn never matches a container
 * that succeeded; `onPodConditions` at the Pod's conditions. FailJob ends the Job with a message
 * naming the container or condition and the rule's index; Ignore keeps the failure off the
 * backoffLimit count; Count is the default. FailIndex needs Indexed Jobs, which this controller
 * does not run (validation still admits it with backoffLimitPerIndex), so it counts as a failure.
 */
import type { KubeObject } from '../types.ts';
import { type PodStatus, statusOf } from './batch-types.ts';

export interface PodFailurePolicyRule {
  action?: string;
  onExitCodes?: { containerName?: string; operator?: string; values?: number[] };
  onPodConditions?: { type?: string; status?: string }[];
}

export interface PodFailurePolicy {
  rules?: PodFailurePolicyRule[];
}

export interface PolicyMatch {
  /** The Job failure message when a FailJob rule matched. */
  failJobMessage?: string;
  /** False when an Ignore rule matched: the failure is not counted against backoffLimit. */
  countFailed: boolean;
  action?: string;
}

type ContainerStatus = NonNullable<PodStatus['containerStatuses']>[number];

function exitCodeMatches(code: number, operator: string | undefined, values: number[]): boolean {
  if (operator === 'In') return values.includes(code);
  if (operator === 'NotIn') return !values.includes(code);
  return false;
}

/** getMatchingContainerFromList: the first terminated, non-zero container the requirement matches. */
function matchingContainer(
  statuses: ContainerStatus[] | undefined,
  req: NonNullable<PodFailurePolicyRule['onExitCodes']>,
): ContainerStatus | undefined {
  return statuses?.find((c) => {
    const terminated = c.state?.terminated;
    if (!terminated) return false;
    if (req.containerName !== undefined && req.containerName !== c.name) return false;
    const code = terminated.exitCode ?? 0;
    return code !== 0 && exitCodeMatches(code, req.operator, req.values ?? []);
  });
}

export function matchPodFailurePolicy(policy: PodFailurePolicy | undefined, pod: KubeObject): PolicyMatch {
  if (!policy) return { countFailed: true };
  const status = statusOf<PodStatus>(pod);
  const podName = `${pod.metadata.namespace}/${pod.metadata.name}`;
  for (const [index, rule] of (policy.rules ?? []).entries()) {
    let failJobMessage: string | undefined;
    if (rule.onExitCodes) {
      const container =
        matchingContainer(status.containerStatuses, rule.onExitCodes) ??
        matchingContainer(status.initContainerStatuses, rule.onExitCodes);
      if (!container) continue;
      failJobMessage = `Container ${container.name} for pod ${podName} failed with exit code ${container.state?.terminated?.exitCode} matching ${rule.action} rule at index ${index}`;
    } else if (rule.onPodConditions) {
      const condition = (status.conditions ?? []).find((c) =>
        rule.onPodConditions!.some((p) => p.type === c.type && p.status === c.status),
      );
      if (!condition) continue;
      failJobMessage = `Pod ${podName} has condition ${condition.type} matching ${rule.action} rule at index ${index}`;
    } else continue;
    // An action this controller does not know is skipped, as the API documents for clients.
    if (rule.action === 'Ignore') return { countFailed: false, action: 'Ignore' };
    if (rule.action === 'Count') return { countFailed: true, action: 'Count' };
    if (rule.action === 'FailJob') return { failJobMessage, countFailed: true, action: 'FailJob' };
  }
  return { countFailed: true };
}
