/**
 * The cluster side of one operation: decide which objects to write (changed since what may be
 * live, or drifted), apply them in dependency order, delete the dropped ones in reverse order,
 * wait for what was applied, then record the outcome in history.
 */
import { CancelledError, TransientError } from '../core/errors.ts';
import type { ReleaseHistory } from '../storage/release-history.ts';
import type { ObjectRef, ReleaseObject, RevisionInfo } from '../storage/types.ts';
import { sortForDelete } from './apply-order.ts';
import { findDrift } from './drift.ts';
import { ApplyFailedError, ReleaseChangedError, RolloutFailedError, RolloutTimeoutError } from './errors.ts';
import { describeRef, RELEASE_LABEL } from './objects.ts';
import { type DesiredObject, planObjects, possiblyLive } from './plan.ts';
import type { Emit } from './progress.ts';
import { describeLeak, findPullSecretLeak } from './pull-secret-leaks.ts';
import type { LiveReader, ObjectWrites, WriteCondition } from './release-cluster.ts';
import { type WaitTarget, waitForTargets } from './waiter.ts';

export interface Desired extends DesiredObject {
  object: ReleaseObject;
}

export interface ResolvedWait {
  timeoutMs: number;
  rollouts: boolean;
  pvcs: boolean;
}

export interface EngineParts {
  history: ReleaseHistory;
  live: LiveReader;
  writer: ObjectWrites;
  historyMax: number;
  pollMs: number;
  /** Problems the pods of these workloads report, for a failed or timed-out wait's message. */
  diagnose(refs: ObjectRef[]): Promise<string[]>;
}

export interface Work {
  /** In apply order. */
  apply: Desired[];
  /** In delete order. */
  drop: ObjectRef[];
  /** Why each drifted object is re-applied (its first differing field), by key. */
  drifted: Map<string, string>;
}

/** What to write so the live objects match `desired` (`exclude`: a revision being continued). */
export async function planWork(
  parts: EngineParts,
  desired: readonly Desired[],
  history: readonly RevisionInfo[],
  exclude: number | undefined,
  signal?: AbortSignal,
): Promise<Work> {
  const plan = planObjects(desired, possiblyLive(history), exclude);
  const changed = new Set(plan.changed.map((o) => o.key));
  const drifted = new Map<string, string>();
  // Objects whose content did not change are applied only when their live copy drifted.
  const unchanged = desired.filter((o) => !changed.has(o.key));
  const lives = await Promise.all(unchanged.map((o) => parts.live.get(o.ref, signal)));
  unchanged.forEach((o, i) => {
    const leak = findPullSecretLeak(o.object, lives[i]);
    const path = findDrift(o.object, lives[i]) ?? (leak ? describeLeak(leak) : undefined);
    if (path !== undefined) drifted.set(o.key, path);
  });
  return {
    apply: desired.filter((o) => changed.has(o.key) || drifted.has(o.key)),
    drop: sortForDelete(plan.dropped),
    drifted,
  };
}

export interface RunOptions {
  release: string;
  /** The revision the failure errors name (the pending one, or the deployed one for a repair). */
  revision: number;
  desired: readonly Desired[];
  wait: ResolvedWait | false;
  emit: Emit;
  signal?: AbortSignal;
  /** Conditions on the writes of some objects, by key (UpgradeInput.onlyOver). */
  conditions?: ReadonlyMap<string, WriteCondition>;
}

/**
 * Applies and deletes, then waits. Permanent failures throw ApplyFailedError, RolloutFailedError
 * or RolloutTimeoutError; transient ones (after in-attempt retries) and aborts pass through as
 * they are, leaving history untouched for the caller to decide.
 */
export async function executeWork(parts: EngineParts, work: Work, options: RunOptions): Promise<void> {
  const { release, revision, emit, signal } = options;
  const total = work.apply.length;
  for (const [i, item] of work.apply.entries()) {
    throwIfAborted(signal);
    const why = work.drifted.get(item.key);
    emit('apply', `applying ${describeRef(item.ref)}${why ? ` (drifted: ${why})` : ''}`, {
      percent: Math.round(10 + (50 * i) / Math.max(total, 1)),
      revision,
      object: item.ref,
      index: i + 1,
      total,
    });
    try {
      await parts.writer.apply(
        item.object,
        signal,
        (leak) =>
          emit('pull-secrets', `${describeRef(item.ref)}: removing leaked ${describeLeak(leak)}`, {
            revision,
            object: item.ref,
          }),
        options.conditions?.get(item.key),
      );
    } catch (err) {
      throw permanentOr(
        err,
        (reason) => new ApplyFailedError(release, revision, item.ref, 'apply', reason, { cause: err }),
      );
    }
  }
  const kept = new Set<ObjectRef>();
  for (const [i, ref] of work.drop.entries()) {
    throwIfAborted(signal);
    const owner = await otherRelease(parts.live, ref, release, signal);
    if (owner) {
      emit('delete', `keeping ${describeRef(ref)}: it is live as an object of release ${owner}`, {
        percent: 60,
        revision,
        object: ref,
      });
      kept.add(ref);
      continue;
    }
    emit('delete', `deleting ${describeRef(ref)}`, {
      percent: 60,
      revision,
      object: ref,
      index: i + 1,
      total: work.drop.length,
    });
    try {
      await parts.writer.delete(ref, signal);
    } catch (err) {
      throw permanentOr(
        err,
        (reason) => new ApplyFailedError(release, revision, ref, 'delete', reason, { cause: err }),
      );
    }
  }
  // The caller reports `work.drop` as deleted: what was kept is not.
  if (kept.size > 0) work.drop = work.drop.filter((ref) => !kept.has(ref));
  if (options.wait) await waitForWork(parts, work, options, options.wait);
}

async function waitForWork(
  parts: EngineParts,
  work: Work,
  options: RunOptions,
  wait: ResolvedWait,
): Promise<void> {
  const { release, revision, emit, signal } = options;
  const targets: WaitTarget[] = [];
  if (wait.rollouts) {
    // What this operation changed: an untouched Deployment has nothing new to roll out.
    for (const o of work.apply)
      if (o.ref.kind === 'Deployment') targets.push({ ref: o.ref, check: 'rollout' });
  }
  if (wait.pvcs) {
    for (const o of options.desired)
      if (o.ref.kind === 'PersistentVolumeClaim') targets.push({ ref: o.ref, check: 'claim' });
  }
  if (targets.length === 0) return;
  emit('wait', `waiting for ${targets.length} object(s), up to ${wait.timeoutMs / 1000} s`, {
    percent: 60,
    revision,
  });
  const result = await waitForTargets(parts.live, targets, {
    timeoutMs: wait.timeoutMs,
    pollMs: parts.pollMs,
    ...(signal ? { signal } : {}),
    onProgress: (p) =>
      emit('wait', p.message, {
        percent: Math.round(60 + 35 * p.fraction),
        revision,
        ...(p.rollouts.length > 0 ? { rollouts: p.rollouts } : {}),
      }),
  });
  switch (result.state) {
    case 'ready':
      return;
    case 'failed':
      throw new RolloutFailedError(
        release,
        revision,
        result.ref,
        result.message,
        await parts.diagnose([result.ref]),
      );
    case 'timeout':
      throw new RolloutTimeoutError(
        release,
        revision,
        wait.timeoutMs,
        result.pending,
        await parts.diagnose(targets.filter((t) => t.check === 'rollout').map((t) => t.ref)),
      );
    case 'aborted':
      throw abortReason(result.reason);
  }
}

/**
 * Marks the revision deployed, older deployed ones superseded, then trims history. A newer
 * deployed revision is left deployed (the newest counts): two writers of a release that do not
 * share a lane (the fleet's rotation and an app's job on `pull-secret-{app}`) may finish in
 * either order, and the one that made the newer revision is the one whose objects are live.
 */
export async function finishRevision(
  parts: EngineParts,
  release: string,
  revision: number,
  description: string,
  emit: Emit,
): Promise<RevisionInfo> {
  emit('finish', `revision ${revision}: ${description}`, { percent: 95, revision });
  // Deployed first, superseded after: a crash in between leaves two deployed revisions (the
  // newest counts, and the next finish supersedes the other), never none.
  const info = await parts.history.setStatus(release, revision, 'deployed', description);
  for (const older of parts.history.history(release)) {
    if (older.revision < revision && older.status === 'deployed') {
      await parts.history.setStatus(release, older.revision, 'superseded', older.description);
    }
  }
  await parts.history.prune(release, parts.historyMax);
  return info;
}

/**
 * Transient errors and aborts go through unchanged (the job retries, continuing the revision), and
 * so does a conditional write that found the object changed (the caller decides).
 */
function permanentOr(err: unknown, make: (reason: string) => Error): unknown {
  if (err instanceof TransientError || err instanceof ReleaseChangedError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  const reason = err instanceof Error ? err.message : String(err);
  return make(reason);
}

/**
 * The release a dropped object's live copy belongs to, when that is not `release`: a name this
 * release once rendered can be another release's object now (two apps' names used to meet,
 * docs/apps.md "Names"), and deleting it would delete that app's object.
 */
export async function otherRelease(
  live: LiveReader,
  ref: ObjectRef,
  release: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const owner = (await live.get(ref, signal))?.metadata?.labels?.[RELEASE_LABEL];
  return owner !== undefined && owner !== release ? owner : undefined;
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal.reason);
}

function abortReason(reason: unknown): Error {
  return reason instanceof Error ? reason : new CancelledError(`cancelled: ${String(reason ?? 'aborted')}`);
}
