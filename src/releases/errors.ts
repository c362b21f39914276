/**
 * Named failures of release operations. Each is permanent for the job (retrying the same content
 * fails the same way): transient API failures are not wrapped in these, they surface as the
 * kube layer's TransientError so the job is retried and continues the same pending revision.
 */
import { LongshoreError } from '../core/errors.ts';
import type { ObjectRef } from '../storage/types.ts';

/** What happened to the automatic rollback after a failure, when one was asked for. */
export type RollbackOutcome =
  | { state: 'rolled-back'; revision: number; toRevision: number }
  | { state: 'failed'; reason: string }
  | { state: 'nothing-to-roll-back-to' };

/** An operation on a release failed; its revision was marked `failed` with `reason`. */
export abstract class ReleaseFailedError extends LongshoreError {
  /** Set when rollback-on-failure ran. */
  rollback: RollbackOutcome | undefined;
  constructor(
    readonly release: string,
    readonly revision: number,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`release ${release} revision ${revision} failed: ${reason}`, options);
  }

  /** Records the rollback's outcome, and says it in the message the job reports. */
  withRollback(outcome: RollbackOutcome): this {
    this.rollback = outcome;
    const base = `release ${this.release} revision ${this.revision} failed: ${this.reason}`;
    switch (outcome.state) {
      case 'rolled-back':
        this.message = `${base}; rolled back to revision ${outcome.toRevision} (as revision ${outcome.revision})`;
        break;
      case 'failed':
        this.message = `${base}; the rollback failed too: ${outcome.reason}`;
        break;
      case 'nothing-to-roll-back-to':
        this.message = `${base}; no earlier deployed revision to roll back to`;
        break;
    }
    return this;
  }
}

/** The API server refused an object (422 validation, 403, 404 namespace…), with its message. */
export class ApplyFailedError extends ReleaseFailedError {
  readonly code = 'APPLY_FAILED';
  constructor(
    release: string,
    revision: number,
    readonly object: ObjectRef,
    readonly action: 'apply' | 'delete',
    reason: string,
    options?: ErrorOptions,
  ) {
    super(release, revision, reason, options);
  }
}

/**
 * What an upgrade's `beforeApply` step throws when it failed for good (a release task that exited
 * non-zero, could not pull its image, or ran out of time): the revision is marked failed with the
 * reason and nothing of it is applied.
 */
export class BeforeApplyFailure extends LongshoreError {
  readonly code = 'BEFORE_APPLY_FAILED';
}

/**
 * The revision failed before its first write (its `beforeApply` step): nothing of it was applied,
 * so there is nothing to roll back — the deployed revision is live as it was.
 */
export class BeforeApplyFailedError extends ReleaseFailedError {
  readonly code = 'BEFORE_APPLY_FAILED';
}

/** A workload could not finish rolling out (ProgressDeadlineExceeded, a lost PVC). */
export class RolloutFailedError extends ReleaseFailedError {
  readonly code = 'ROLLOUT_FAILED';
  constructor(
    release: string,
    revision: number,
    readonly object: ObjectRef,
    reason: string,
    /** What the pods report (ErrImagePull…), when they say something. */
    readonly problems: string[] = [],
  ) {
    super(release, revision, `${reason}${problems.length ? `; ${problems.join('; ')}` : ''}`);
  }
}

/** The wait ran out of time before every workload was ready. */
export class RolloutTimeoutError extends ReleaseFailedError {
  readonly code = 'ROLLOUT_TIMEOUT';
  constructor(
    release: string,
    revision: number,
    readonly timeoutMs: number,
    readonly pending: string[],
    /** What the pods report (ErrImagePull…), when they say something. */
    readonly problems: string[] = [],
  ) {
    super(
      release,
      revision,
      `timed out after ${timeoutMs / 1000} s waiting for: ${pending.join('; ')}` +
        (problems.length ? `; ${problems.join('; ')}` : ''),
    );
  }
}

/**
 * The operation was interrupted (a transient error on the job's last attempt, or a cancel) and
 * its revision was marked `failed` instead of being left pending for a retry that will not come.
 */
export class ReleaseInterruptedError extends ReleaseFailedError {
  readonly code = 'RELEASE_INTERRUPTED';
  constructor(
    release: string,
    revision: number,
    reason: string,
    readonly cancelled: boolean,
    options?: ErrorOptions,
  ) {
    super(release, revision, reason, options);
  }
}

/**
 * An upgrade that was to write only over a given revision (UpgradeInput.onlyOver) found the
 * release changed since: another holder's revision after it, a live object that no longer holds
 * what it applied, or a write or delete of an object between the check and the write. Nothing of
 * the upgrade landed (its revision, when it made one, is marked failed): whoever changed the
 * release wrote last.
 */
export class ReleaseChangedError extends LongshoreError {
  readonly code = 'RELEASE_CHANGED';
  constructor(
    readonly release: string,
    /** What changed (`revision 4 (pending-upgrade) of another job follows revision 3`). */
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`release ${release} changed while it was to be written: ${reason}`, options);
  }
}

/** A rollback named a release that has no history. */
export class ReleaseNotFoundError extends LongshoreError {
  readonly code = 'RELEASE_NOT_FOUND';
  constructor(readonly release: string) {
    super(`release ${release} not found`);
  }
}

/** A rollback named a revision the history does not hold (pruned, or never existed). */
export class RevisionNotFoundError extends LongshoreError {
  readonly code = 'REVISION_NOT_FOUND';
  constructor(
    readonly release: string,
    readonly revision: number,
  ) {
    super(`release ${release} has no revision ${revision}`);
  }
}
