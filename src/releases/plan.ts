/**
 * Planning an operation from history alone (no API reads): which revisions may have shaped the
 * live objects, which objects changed since, which must be deleted, and what to do with a
 * pending revision left by an earlier attempt.
 *
 * "Possibly live" revisions are the deployed one and every revision after it (failed or
 * interrupted ones may have applied some objects before stopping). Helm diffs against the
 * deployed revision only, so objects a failed upgrade created leak; longshore deletes them.
 */
import { type ObjectRef, PENDING_STATUSES, type ReleaseStatus, type RevisionInfo } from '../storage/types.ts';
import { keyOf } from './objects.ts';

export interface DesiredObject {
  ref: ObjectRef;
  key: string;
  digest: string;
}

/** The deployed revision and all later ones, or the whole history when none is deployed. */
export function possiblyLive(history: readonly RevisionInfo[]): RevisionInfo[] {
  let anchor = -1;
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i]!.status === 'deployed') {
      anchor = i;
      break;
    }
  }
  return anchor === -1 ? [...history] : history.slice(anchor);
}

export interface ObjectPlan {
  /** Objects whose content differs from some possibly-live version of them (or that are new). */
  changed: DesiredObject[];
  /** Objects every possibly-live revision holds with this exact digest: applied only if drifted. */
  unchanged: DesiredObject[];
  /** Objects of possibly-live revisions that the new content drops. */
  dropped: ObjectRef[];
}

/**
 * `exclude` is a revision being continued: its own digests equal the desired ones and say nothing
 * about what is live.
 */
export function planObjects(
  desired: readonly DesiredObject[],
  live: readonly RevisionInfo[],
  exclude?: number,
): ObjectPlan {
  const baselines = live.filter((r) => r.revision !== exclude);
  const byRevision = baselines.map((r) => new Map(r.objects.map((o) => [keyOf(o), o.digest])));
  const changed: DesiredObject[] = [];
  const unchanged: DesiredObject[] = [];
  for (const object of desired) {
    const same =
      byRevision.length > 0 && byRevision.every((objects) => objects.get(object.key) === object.digest);
    (same ? unchanged : changed).push(object);
  }
  const wanted = new Set(desired.map((o) => o.key));
  const dropped = new Map<string, ObjectRef>();
  for (const revision of live) {
    for (const o of revision.objects) {
      const key = keyOf(o);
      if (!wanted.has(key) && !dropped.has(key)) {
        dropped.set(key, {
          apiVersion: o.apiVersion,
          kind: o.kind,
          name: o.name,
          ...(o.namespace ? { namespace: o.namespace } : {}),
        });
      }
    }
  }
  return { changed, unchanged, dropped: [...dropped.values()] };
}

export const INTERRUPTED = 'interrupted: the worker holding it stopped';
export const RETRIED_OTHERWISE = 'interrupted: its job was retried with different content';

export type Recovery =
  | { action: 'none' }
  | { action: 'continue'; revision: RevisionInfo }
  | { action: 'fail'; revision: RevisionInfo; reason: string };

/**
 * A pending last revision is never a lock to wait on: jobs of one app run one at a time across
 * the fleet, so whoever left it is gone. The same job retried (same holder, same content, same
 * kind of operation) continues it, so a crash never duplicates a revision; anything else marks it
 * failed and goes on.
 */
export function decideRecovery(
  last: RevisionInfo | undefined,
  holder: string,
  digest: string,
  pendingKinds: readonly ReleaseStatus[],
): Recovery {
  if (!last || !PENDING_STATUSES.includes(last.status)) return { action: 'none' };
  if (last.holder !== holder) return { action: 'fail', revision: last, reason: INTERRUPTED };
  if (last.digest === digest && pendingKinds.includes(last.status))
    return { action: 'continue', revision: last };
  return { action: 'fail', revision: last, reason: RETRIED_OTHERWISE };
}

/** Description the engine gives every rollback revision (an operator's or rollback-on-failure's). */
export function rollbackDescription(target: number): string {
  return `Rollback to ${target}`;
}

/** The revision a rollback revision restored, or undefined when `info` is not a rollback. */
export function rollbackTargetOf(info: { description: string }): number | undefined {
  const m = /^Rollback to (\d+)$/.exec(info.description);
  return m ? Number(m[1]) : undefined;
}
