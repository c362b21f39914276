/** The release engine's public surface. */
export { APPLY_ORDER, sortForApply, sortForDelete } from './apply-order.ts';
export { contentDigest, objectDigest } from './canonical.ts';
export { findDrift } from './drift.ts';
export { ReleaseEngine, type ReleaseEngineOptions } from './engine.ts';
export {
  ApplyFailedError,
  BeforeApplyFailedError,
  BeforeApplyFailure,
  ReleaseChangedError,
  ReleaseFailedError,
  ReleaseInterruptedError,
  ReleaseNotFoundError,
  RevisionNotFoundError,
  type RollbackOutcome,
  RolloutFailedError,
  RolloutTimeoutError,
} from './errors.ts';
export type { ProgressEvent, ProgressListener, ProgressStep } from './events.ts';
export { createReleaseEngine, type KubeReleaseEngineOptions } from './kube-engine.ts';
export type { ObjectDiff, ValueChange } from './object-diff.ts';
export { MANAGED_BY, MANAGED_BY_LABEL, MANAGED_SELECTOR, RELEASE_LABEL } from './objects.ts';
export type { Observed } from './observe.ts';
export { INTERRUPTED, rollbackTargetOf } from './plan.ts';
export type { RedactionReport } from './redact-history.ts';
export type { PlanAction, PlannedObject, ReleasePlan } from './release-plan.ts';
export { claimReadiness, deploymentReadiness, type Readiness } from './rollout.ts';
export {
  describeLost,
  type LiveValues,
  type LostValue,
  REDACTED_FIELD,
  withValues,
} from './secret-values.ts';
export type {
  InterruptDecision,
  PlanInput,
  RollbackInput,
  UninstallInput,
  UninstallResult,
  UpgradeInput,
  UpgradeOutcome,
  UpgradeResult,
  WaitOptions,
} from './types.ts';
