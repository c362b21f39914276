/**
 * Progress of a release operation, streamed to whoever waits on the job (`job.updateProgress`,
 * `job.log`). Steps are coarse and stable so callers can react to them (the crash tests kill a
 * process at a chosen step).
 */
import type { ObjectRef } from '../storage/types.ts';

export type ProgressStep =
  /** A pending revision left by an earlier attempt is continued or marked failed. */
  | 'recover'
  /** Comparing the new content with history and live objects. */
  | 'plan'
  /** Nothing to do: same content, no drift. */
  | 'noop'
  /** A pending revision was stored. */
  | 'revision'
  /** One object is about to be applied (`index` of `total`). */
  | 'apply'
  /** Leaked imagePullSecrets of an object are released to longshore, for its apply to remove them. */
  | 'pull-secrets'
  /** One object dropped since the previous revision is about to be deleted. */
  | 'delete'
  /** Waiting for workloads; repeated as their state changes. */
  | 'wait'
  /** About to mark the revision deployed. */
  | 'finish'
  /** The operation failed and its revision was marked failed. */
  | 'failed'
  /** Rollback-on-failure started. */
  | 'rollback'
  /** Uninstalling: about to delete the release's objects and history. */
  | 'uninstall';

/** Where one Deployment's rollout stands (`wait` events of a rollout). */
export interface DeploymentRollout {
  name: string;
  namespace?: string;
  desired: number;
  updated: number;
  ready: number;
  available: number;
}

export interface ProgressEvent {
  release: string;
  step: ProgressStep;
  message: string;
  /** 0–100 over the whole operation (apply 10–60, wait 60–95). */
  percent?: number;
  revision?: number;
  object?: ObjectRef;
  /** For `apply` and `delete`: 1-based position and count. */
  index?: number;
  total?: number;
  /**
   * For `wait` events while Deployments roll out: every Deployment waited for, ready ones
   * included, and one last event once all are ready (its message says so).
   */
  rollouts?: DeploymentRollout[];
}

export type ProgressListener = (event: ProgressEvent) => void;
