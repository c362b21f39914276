/**
 * Where a run stands, read from its Job and the Job's pods as the kubelet and the Job controller
 * report them. Pure: the handler polls the objects and acts on this (test/unit/workers/run.test.ts).
 *
 * - `starting`: no pod yet, the Job suspended (its env Secret not written yet), or the container
 *   still being created or waiting its image;
 * - `running` / `exited`: the container runs / ended with an exit code (the run's own outcome,
 *   whatever it is: `exit 3` is a finished run, not a failed job);
 * - `failed`: the run cannot produce an exit code. `cannotStart` for a pod that will not start by
 *   itself (an image that cannot be pulled, an environment that cannot be resolved): the handler
 *   deletes the Job, which would otherwise wait until its deadline. Otherwise the Job finished
 *   without one (DeadlineExceeded; its pod evicted or deleted).
 */
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { RUN_CONTAINER } from '../../../charts/index.ts';

/**
 * Waiting reasons of a container the kubelet will not start without someone changing something: the
 * image (ErrImagePull, and ImagePullBackOff, read as ErrImagePull below) and the container's
 * configuration (a missing Secret or key).
 */
export const CANNOT_START_REASONS: readonly string[] = [
  'ErrImagePull',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
];

export type RunState =
  | { kind: 'starting'; detail: string }
  | { kind: 'running'; pod: string; podUid: string }
  | { kind: 'exited'; pod?: string; podUid?: string; exitCode: number; reason?: string }
  | { kind: 'failed'; reason: string; message: string; cannotStart: boolean };

const created = (pod: V1Pod) => new Date(pod.metadata?.creationTimestamp ?? 0).getTime();

/** The Job's pod: with `backoffLimit: 0` there is one; should there be more, the newest. */
export function runPod(pods: readonly V1Pod[]): V1Pod | undefined {
  return [...pods].sort((a, b) => created(a) - created(b)).at(-1);
}

function finishedCondition(job: V1Job) {
  return (job.status?.conditions ?? []).find(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
}

export function runState(job: V1Job, pods: readonly V1Pod[]): RunState {
  const finished = finishedCondition(job);
  // The deadline kills a running container (137): the deadline, not that status, is the outcome.
  if (finished?.type === 'Failed' && finished.reason === 'DeadlineExceeded')
    return {
      kind: 'failed',
      reason: 'DeadlineExceeded',
      message: finished.message || 'the Job was active longer than its activeDeadlineSeconds',
      cannotStart: false,
    };
  const pod = runPod(pods);
  const name = pod?.metadata?.name ?? '';
  const podUid = pod?.metadata?.uid ?? '';
  const statuses = pod?.status?.containerStatuses ?? [];
  const status = statuses.find((s) => s.name === RUN_CONTAINER) ?? statuses[0];
  const terminated = status?.state?.terminated;
  if (terminated)
    return {
      kind: 'exited',
      pod: name,
      podUid,
      exitCode: terminated.exitCode,
      ...(terminated.reason ? { reason: terminated.reason } : {}),
    };
  if (status?.state?.running) return { kind: 'running', pod: name, podUid };
  const waiting = status?.state?.waiting;
  // The back-off only ever follows a failed pull: named as the failure it is, whichever of the two
  // states the pod was read in (the kubelet leaves ErrImagePull for the back-off within a second).
  if (waiting?.reason === 'ImagePullBackOff')
    return {
      kind: 'failed',
      reason: 'ErrImagePull',
      message: `${waiting.message || 'Back-off pulling image'} (ImagePullBackOff)`,
      cannotStart: true,
    };
  if (waiting?.reason && CANNOT_START_REASONS.includes(waiting.reason))
    return {
      kind: 'failed',
      reason: waiting.reason,
      message: waiting.message || waiting.reason,
      cannotStart: true,
    };
  if (pod?.status?.phase === 'Failed')
    return {
      kind: 'failed',
      reason: pod.status.reason || 'PodFailed',
      message: pod.status.message || `pod ${name} failed before its container ran`,
      cannotStart: false,
    };
  if (finished?.type === 'Complete') return { kind: 'exited', exitCode: 0 };
  if (finished?.type === 'Failed')
    return {
      kind: 'failed',
      reason: finished.reason || 'Failed',
      message: finished.message || 'the Job failed and its pod is gone',
      cannotStart: false,
    };
  if (job.spec?.suspend) return { kind: 'starting', detail: 'the Job is suspended' };
  if (!pod) return { kind: 'starting', detail: 'waiting for the Job to create its pod' };
  return {
    kind: 'starting',
    detail: waiting?.reason
      ? `pod ${name}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`
      : `pod ${name}: ${pod.status?.phase ?? 'Pending'}`,
  };
}
