/**
 * The delay before a Job replaces failed Pods (pkg/controller/job/backoff_utils.go, 1.33): the
 * controller remembers, per Job and in memory only, how many Pods failed since the last success
 * and when the last of them finished; new Pods wait `base * 2^(failures-1)` (capped at `max`)
 * from that moment. Upstream's base and cap are DefaultJobPodFailureBackOff (10 s) and
 * MaxJobPodFailureBackOff (10 min) in job_controller.go; here they are the settings
 * `jobBackOffBaseMs` and `jobBackOffMaxMs`, so tests can make them short.
 */
import type { KubeObject } from '../types.ts';
import { type PodStatus, statusOf } from './batch-types.ts';

export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureTime?: number;
}

/**
 * getFinishedTime: the latest finishedAt when every container terminated, else the Ready=False
 * condition's transition, else the deletion time less the grace period, else the creation time.
 */
export function podFinishedTime(pod: KubeObject): number {
  const status = statusOf<PodStatus>(pod);
  const containers = status.containerStatuses ?? [];
  let latest: number | undefined;
  let allFinished = containers.length > 0;
  for (const c of containers) {
    const at = Date.parse(c.state?.terminated?.finishedAt ?? '');
    if (Number.isNaN(at)) {
      allFinished = false;
      break;
    }
    latest = latest === undefined ? at : Math.max(latest, at);
  }
  if (allFinished && latest !== undefined) return latest;
  const ready = status.conditions?.find((c) => c.type === 'Ready' && c.status === 'False');
  const readyAt = Date.parse(ready?.lastTransitionTime ?? '');
  if (!Number.isNaN(readyAt)) return readyAt;
  const deleted = Date.parse(pod.metadata.deletionTimestamp ?? '');
  if (!Number.isNaN(deleted)) return deleted - (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  return Date.parse(pod.metadata.creationTimestamp ?? '') || 0;
}

/**
 * newBackoffRecord: new failures without a success add up; a success resets the count to the
 * failures that finished after it.
 */
export function nextBackoffRecord(
  old: BackoffRecord | undefined,
  newSucceeded: KubeObject[],
  newFailed: KubeObject[],
): BackoffRecord {
  const record: BackoffRecord = { failuresAfterLastSuccess: 0, ...old };
  const failedTimes = newFailed.map(podFinishedTime).sort((a, b) => a - b);
  if (newSucceeded.length === 0) {
    if (failedTimes.length === 0) return record;
    return {
      failuresAfterLastSuccess: record.failuresAfterLastSuccess + failedTimes.length,
      lastFailureTime: failedTimes[failedTimes.length - 1],
    };
  }
  const lastSuccess = Math.max(...newSucceeded.map(podFinishedTime));
  const after = failedTimes.filter((t) => t > lastSuccess);
  return after.length === 0
    ? { failuresAfterLastSuccess: 0 }
    : { failuresAfterLastSuccess: after.length, lastFailureTime: after[after.length - 1] };
}

/** getRemainingTimeForFailuresCount: how long new Pods still wait (0: create them now). */
export function remainingBackoffMs(
  record: BackoffRecord | undefined,
  baseMs: number,
  maxMs: number,
  now: number,
): number {
  if (!record || record.failuresAfterLastSuccess === 0 || record.lastFailureTime === undefined) return 0;
  let delay = baseMs;
  for (let i = 1; i < record.failuresAfterLastSuccess; i++) {
    delay *= 2;
    if (delay >= maxMs) {
      delay = maxMs;
      break;
    }
  }
  const elapsed = now - record.lastFailureTime;
  return delay < elapsed ? 0 : delay - elapsed;
}
