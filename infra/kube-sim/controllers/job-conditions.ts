/**
 * Job status conditions and counters as kube-controller-manager 1.33 writes them
 * (pkg/controller/job/job_controller.go newCondition, ensureJobConditionStatus,
 * pastActiveDeadline, pastBackoffLimitOnFailure).
 */
import { timestamp } from '../api/metadata.ts';
import type { KubeObject } from '../types.ts';
import type { Condition, JobSpec, JobStatus, PodStatus } from './batch-types.ts';
import { podPhase, statusOf } from './batch-types.ts';

export function newCondition(
  type: string,
  status: Condition['status'],
  reason: string,
  message: string,
  now: Date,
): Condition {
  const at = timestamp(now);
  return { type, status, lastProbeTime: at, lastTransitionTime: at, reason, message };
}

/**
 * ensureJobConditionStatus: replaces a condition of this type whose status, reason or message
 * differ; appends one only when it is not False ("going from nothing to false is meaningless").
 * Returns whether the list changed.
 */
export function ensureCondition(
  conditions: Condition[],
  type: string,
  status: Condition['status'],
  reason: string,
  message: string,
  now: Date,
): boolean {
  const index = conditions.findIndex((c) => c.type === type);
  if (index >= 0) {
    const existing = conditions[index]!;
    if (existing.status === status && existing.reason === reason && existing.message === message)
      return false;
    conditions[index] = newCondition(type, status, reason, message, now);
    return true;
  }
  if (status === 'False') return false;
  conditions.push(newCondition(type, status, reason, message, now));
  return true;
}

/** pastActiveDeadline: active (not suspended) for at least activeDeadlineSeconds since startTime. */
export function msUntilActiveDeadline(
  spec: JobSpec,
  startTime: string | undefined,
  now: Date,
): number | undefined {
  if (spec.activeDeadlineSeconds === undefined || !startTime || spec.suspend === true) return undefined;
  return Date.parse(startTime) + spec.activeDeadlineSeconds * 1000 - now.getTime();
}

/**
 * pastBackoffLimitOnFailure: with restartPolicy OnFailure a failing container restarts in place,
 * so the restarts of running and pending pods count against backoffLimit.
 */
export function pastBackoffLimitOnFailure(spec: JobSpec, pods: KubeObject[]): boolean {
  if (spec.template.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of pods) {
    const phase = podPhase(pod);
    if (phase !== 'Running' && phase !== 'Pending') continue;
    const status = statusOf<PodStatus>(pod);
    for (const c of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])])
      restarts += c.restartCount ?? 0;
  }
  const limit = spec.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/**
 * The status object in JobStatus field order; zero counters that are plain int32 with omitempty
 * upstream (active, succeeded, failed) are left out, pointer ones (ready, terminating) kept.
 */
export function jobStatus(parts: {
  conditions: Condition[];
  startTime: string | undefined;
  completionTime: string | undefined;
  active: number;
  succeeded: number;
  failed: number;
  terminating: number;
  ready: number;
}): JobStatus {
  const status: JobStatus = {};
  if (parts.conditions.length > 0) status.conditions = parts.conditions;
  if (parts.startTime) status.startTime = parts.startTime;
  if (parts.completionTime) status.completionTime = parts.completionTime;
  if (parts.active > 0) status.active = parts.active;
  if (parts.succeeded > 0) status.succeeded = parts.succeeded;
  if (parts.failed > 0) status.failed = parts.failed;
  status.terminating = parts.terminating;
  status.uncountedTerminatedPods = {};
  status.ready = parts.ready;
  return status;
}
