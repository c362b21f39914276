/** Inputs and results of the release engine's operations. */
import type { ObjectRef, ReleaseObject, ReleaseStatus } from '../storage/types.ts';
import type { ProgressListener } from './events.ts';

export interface WaitOptions {
  /** Overall deadline of the wait (default: the engine's, 300 s). */
  timeoutMs?: number;
  /** Wait for Deployments to roll out (default true). */
  rollouts?: boolean;
  /** Wait for PersistentVolumeClaims to be Bound (default false: WaitForFirstConsumer classes bind late). */
  pvcs?: boolean;
}

/**
 * What an interrupted revision is left as, when the operation stops on something other than a
 * failure of its content (a transient error that outlasted the in-call retries, an abort):
 * - `retry` (the default): `pending-*` under its holder, for the job's retry to continue;
 * - `give-up`: no retry will come (the job's last attempt): marked `failed`, and with
 *   rollbackOnFailure the deployed revision is restored, as for a failed rollout;
 * - `cancel`: an operator said "not this change": marked `failed` and the deployed revision is
 *   always restored, so the cancelled change does not stay live.
 */
export type InterruptDecision = 'retry' | 'give-up' | 'cancel';

interface OperationOptions {
  /** Who runs the operation: the job's idempotency key, stable across its retries. */
  holder: string;
  /** `false` skips waiting; default waits for rollouts with the engine's timeout. */
  wait?: WaitOptions | false;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  /** Decides what an interrupted revision is left as (see InterruptDecision; default `retry`). */
  onInterrupt?(err: unknown): InterruptDecision;
}

export interface UpgradeInput extends OperationOptions {
  app: string;
  release: string;
  chart: { name: string; version: string };
  values: Record<string, unknown>;
  objects: ReleaseObject[];
  /** On failure, restore the previous deployed revision (as a new revision), then report the failure. */
  rollbackOnFailure?: boolean;
  /** Description of a successful revision (default: Helm's "Install complete" / "Upgrade complete"). */
  description?: string;
  /**
   * Keys of `values` stored with a new revision that alone never make one: content equal to the
   * deployed revision's but for these keys is a no-op (or a repair), as if they were equal. The app
   * release records the spec that produced it this way (src/apps/revision-record.ts).
   */
  recordOnlyKeys?: readonly string[];
  /**
   * Write only over this revision of the release (`null`: only while it has no history), as a
   * compare-and-swap: for a writer outside the release's lane, which must not overwrite what the
   * release's own jobs write meanwhile (the fleet's rotation writing `pull-secret-{app}`,
   * docs/apps.md "A rotation and the app's own jobs"). Before anything is written: no revision may
   * follow it but this holder's own pending one with this content (continued, never another's
   * interrupted), and every object to write must hold, as the API server has it now (not the
   * cache), what that revision applied — Secret values by digest — or be absent where it had none.
   * Each write is then conditional on what was checked (the resourceVersion, or absence), and the
   * revision is created only if no other job took its number. Otherwise ReleaseChangedError: no
   * write of this upgrade landed (a revision it made is marked failed). The content must keep the
   * revision's objects (nothing dropped).
   */
  onlyOver?: number | null;
  /**
   * Runs once the revision exists (new, or the pending one this holder continues) and before its
   * first write; not for a no-op or a repair (no revision). The deploy pipeline runs the app's
   * release task here (src/workers/deploy/release-task.ts). A `BeforeApplyFailure` marks the
   * revision failed with its message (no rollback: nothing was applied); any other error is an
   * interruption, decided by `onInterrupt` like one of the engine's own.
   */
  beforeApply?: (revision: number) => Promise<void>;
}

export interface RollbackInput extends OperationOptions {
  release: string;
  /** The revision whose content to restore (default: the deployed revision before the current one). */
  revision?: number;
}

export interface UninstallInput {
  release: string;
  holder: string;
  /**
   * Delete workloads (kinds whose objects own others: Deployments, ReplicaSets, CronJobs, Jobs…)
   * with Foreground propagation, so their pods go before them (a destroy). Default: Background.
   */
  foregroundWorkloads?: boolean;
  /** How long to wait for those to be gone (default: the engine's wait deadline). */
  timeoutMs?: number;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}

/**
 * - `noop`: same content as the deployed revision and no drift: nothing written.
 * - `repaired`: same content, but live objects had drifted (or an interrupted revision had
 *   touched them): those objects were re-applied; no new revision.
 * - `deployed`: a new revision (or a continued pending one) is now deployed.
 */
export type UpgradeOutcome = 'noop' | 'repaired' | 'deployed';

export interface UpgradeResult {
  release: string;
  /** The deployed revision after the call. */
  revision: number;
  outcome: UpgradeOutcome;
  /** False only for `noop`. */
  changed: boolean;
  status: ReleaseStatus;
  applied: ObjectRef[];
  deleted: ObjectRef[];
  /** A pending revision found at the start: continued (same holder) or marked failed (another holder). */
  recovered?: { revision: number; action: 'continued' | 'marked-failed' };
}

export interface UninstallResult {
  release: string;
  /** False when the release had no history (already uninstalled: a retried destroy job). */
  existed: boolean;
  deleted: ObjectRef[];
}

/** What `plan` (a dry run of an upgrade) is given: an upgrade's content, without what writes need. */
export interface PlanInput {
  release: string;
  chart: { name: string; version: string };
  values: Record<string, unknown>;
  objects: ReleaseObject[];
  /** UpgradeInput.recordOnlyKeys: decides whether the upgrade would make a new revision. */
  recordOnlyKeys?: readonly string[];
  signal?: AbortSignal;
}
