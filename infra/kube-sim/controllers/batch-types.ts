/**
 * The shapes of batch/v1 Jobs and CronJobs and of Pods as the Job and CronJob controllers read
 * them, with the small predicates upstream keeps in pkg/controller/job/util (IsJobFinished,
 * FinishedCondition) and pkg/api/v1/pod (IsPodReady).
 */
import { typeKey } from '../api/service.ts';
import { findByKind } from '../resources.ts';
import type { KubeObject, OwnerReference } from '../types.ts';

export const JOB = findByKind('batch/v1', 'Job')!;
export const CRONJOB = findByKind('batch/v1', 'CronJob')!;
export const POD = findByKind('v1', 'Pod')!;
export const JOB_KEY = typeKey(JOB);
export const CRONJOB_KEY = typeKey(CRONJOB);
export const POD_KEY = typeKey(POD);

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface PodTemplate {
  metadata?: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
  };
  spec?: { restartPolicy?: string; [key: string]: unknown };
}

export interface JobSpec {
  parallelism?: number;
  completions?: number | null;
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  ttlSecondsAfterFinished?: number;
  suspend?: boolean;
  completionMode?: string;
  podReplacementPolicy?: string;
  managedBy?: string;
  podFailurePolicy?: unknown;
  template: PodTemplate;
}

export interface JobStatus {
  conditions?: Condition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
  ready?: number;
}

export interface CronJobSpec {
  schedule: string;
  timeZone?: string;
  suspend?: boolean;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
  jobTemplate: { metadata?: PodTemplate['metadata']; spec: JobSpec };
}

export interface ObjectReference {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  apiVersion: string;
  resourceVersion: string;
}

export interface CronJobStatus {
  active?: ObjectReference[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

interface ContainerStatus {
  name: string;
  restartCount?: number;
  state?: {
    waiting?: { reason?: string };
    running?: { startedAt?: string };
    terminated?: { startedAt?: string; finishedAt?: string; exitCode?: number };
  };
  lastState?: { terminated?: { containerID?: string } };
}

export interface PodStatus {
  phase?: string;
  conditions?: Condition[];
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
}

export function statusOf<T>(object: KubeObject): T {
  return (object.status ?? {}) as T;
}

export function findCondition(conditions: Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type && c.status === 'True');
}

/** The Complete or Failed condition of a finished Job (jobutil.FinishedCondition). */
export function finishedCondition(job: KubeObject): Condition | undefined {
  const conditions = statusOf<JobStatus>(job).conditions;
  return conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

export function controllerRef(object: KubeObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** True when `ref` is the controller reference of an object of this kind (metav1.IsControlledBy). */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  return controllerRef(object)?.uid === owner.metadata.uid;
}

export function podPhase(pod: KubeObject): string {
  return statusOf<PodStatus>(pod).phase ?? 'Pending';
}

export function isPodTerminal(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return phase === 'Succeeded' || phase === 'Failed';
}

/** controller.FilterActivePods: not terminal and not being deleted. */
export function isPodActive(pod: KubeObject): boolean {
  return !isPodTerminal(pod) && !pod.metadata.deletionTimestamp;
}

export function isPodReady(pod: KubeObject): boolean {
  return findCondition(statusOf<PodStatus>(pod).conditions, 'Ready') !== undefined;
}

/** A controller reference to `owner`, with blockOwnerDeletion, as metav1.NewControllerRef makes. */
export function newControllerRef(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}
