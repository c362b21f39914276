/**
 * Ports of pkg/controller/deployment/util/deployment_util.go: revisions, replica annotations,
 * rolling-update fenceposts, replica counts and the ReplicaSet orderings the controller sorts by.
 * Function names follow upstream's so behaviour can be compared line by line.
 */
import type { KubeObject } from '../types.ts';
import type { Deployment, IntOrString, ReplicaSet } from './workload-types.ts';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/** sync.go: the revision-history annotation is capped at this many characters. */
const MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000;

/** Annotations a Deployment does not pass to its ReplicaSets (annotationsToSkip). */
const ANNOTATIONS_TO_SKIP = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  'deprecated.deployment.rollback.to',
]);

export function replicasOf(object: { spec: { replicas?: number } }): number {
  return object.spec.replicas ?? 1;
}

/** Revision: the revision annotation as a number; 0 when absent, undefined when unparsable. */
export function revision(object: KubeObject): number | undefined {
  const value = object.metadata.annotations?.[REVISION_ANNOTATION];
  if (value === undefined) return 0;
  return /^[+-]?\d+$/.test(value) ? Number(value) : undefined;
}

/** MaxRevision: unparsable revisions are skipped. */
export function maxRevision(replicaSets: ReplicaSet[]): number {
  let max = 0;
  for (const rs of replicaSets) {
    const v = revision(rs);
    if (v !== undefined && v > max) max = v;
  }
  return max;
}

/** intstr.GetScaledValueFromIntOrPercent. */
export function scaledValue(value: IntOrString | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const percent = Number.parseInt(value.replace(/%$/, ''), 10);
  if (Number.isNaN(percent)) return 0;
  const scaled = (percent * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

export function isRollingUpdate(d: Deployment): boolean {
  return (d.spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

/**
 * ResolveFenceposts: maxSurge rounds up, maxUnavailable down; both resolving to zero makes
 * maxUnavailable 1 "on the theory that surge might not work due to quota".
 */
export function resolveFenceposts(d: Deployment): { surge: number; unavailable: number } {
  const desired = replicasOf(d);
  const rolling = d.spec.strategy?.rollingUpdate;
  const surge = scaledValue(rolling?.maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(rolling?.maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function maxSurge(d: Deployment): number {
  return isRollingUpdate(d) ? resolveFenceposts(d).surge : 0;
}

export function maxUnavailable(d: Deployment): number {
  const desired = replicasOf(d);
  if (!isRollingUpdate(d) || desired === 0) return 0;
  return Math.min(resolveFenceposts(d).unavailable, desired);
}

const specReplicas = (rs: ReplicaSet | undefined): number => (rs ? replicasOf(rs) : 0);

/** GetReplicaCountForReplicaSets: desired (spec) replicas. */
export function replicaCount(replicaSets: (ReplicaSet | undefined)[]): number {
  return replicaSets.reduce((n, rs) => n + specReplicas(rs), 0);
}

/** GetActualReplicaCountForReplicaSets: replicas the ReplicaSets report (status). */
export function actualReplicaCount(replicaSets: (ReplicaSet | undefined)[]): number {
  return replicaSets.reduce((n, rs) => n + (rs?.status?.replicas ?? 0), 0);
}

export function readyReplicaCount(replicaSets: (ReplicaSet | undefined)[]): number {
  return replicaSets.reduce((n, rs) => n + (rs?.status?.readyReplicas ?? 0), 0);
}

export function availableReplicaCount(replicaSets: (ReplicaSet | undefined)[]): number {
  return replicaSets.reduce((n, rs) => n + (rs?.status?.availableReplicas ?? 0), 0);
}

/** controller.FilterActiveReplicaSets: those with desired replicas. */
export function activeReplicaSets(replicaSets: (ReplicaSet | undefined)[]): ReplicaSet[] {
  return replicaSets.filter((rs): rs is ReplicaSet => rs !== undefined && specReplicas(rs) > 0);
}

const created = (o: KubeObject): number => Date.parse(o.metadata.creationTimestamp ?? '') || 0;

/** controller.ReplicaSetsByCreationTimestamp: oldest first, ties by name. */
export function byCreationTimestamp(a: KubeObject, b: KubeObject): number {
  return created(a) - created(b) || (a.metadata.name! < b.metadata.name! ? -1 : 1);
}

/** deploymentutil.ReplicaSetsByRevision: lowest revision first, ties oldest first. */
export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  return (revision(a) ?? 0) - (revision(b) ?? 0) || byCreationTimestamp(a, b);
}

/** controller.ReplicaSetsBySizeOlder: largest first, ties oldest first (scaling down). */
export function bySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  return specReplicas(b) - specReplicas(a) || byCreationTimestamp(a, b);
}

/** controller.ReplicaSetsBySizeNewer: largest first, ties newest first (scaling up). */
export function bySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  return specReplicas(b) - specReplicas(a) || byCreationTimestamp(b, a);
}

/** SetDeploymentRevision: true when the annotation changed. */
export function setDeploymentRevision(annotations: Record<string, string>, rev: string): boolean {
  if (annotations[REVISION_ANNOTATION] === rev) return false;
  annotations[REVISION_ANNOTATION] = rev;
  return true;
}

/** SetReplicasAnnotations: desired-replicas and max-replicas; true when either changed. */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  rs.metadata.annotations ??= {};
  const annotations = rs.metadata.annotations;
  let updated = false;
  if (annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired)) {
    annotations[DESIRED_REPLICAS_ANNOTATION] = String(desired);
    updated = true;
  }
  if (annotations[MAX_REPLICAS_ANNOTATION] !== String(max)) {
    annotations[MAX_REPLICAS_ANNOTATION] = String(max);
    updated = true;
  }
  return updated;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const annotations = rs.metadata.annotations ?? {};
  return (
    annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired) ||
    annotations[MAX_REPLICAS_ANNOTATION] !== String(max)
  );
}

/** copyDeploymentAnnotationsToReplicaSet. */
function copyDeploymentAnnotations(d: Deployment, rs: ReplicaSet): boolean {
  rs.metadata.annotations ??= {};
  const annotations = rs.metadata.annotations;
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (ANNOTATIONS_TO_SKIP.has(k) || annotations[k] === v) continue;
    annotations[k] = v;
    changed = true;
  }
  return changed;
}

/**
 * SetNewReplicaSetAnnotations: copies the Deployment's annotations, raises the revision to
 * `newRevision` when lower (a rollback to this template keeps the old numbers in
 * revision-history), and on a new ReplicaSet sets the replicas annotations.
 */
export function setNewReplicaSetAnnotations(
  d: Deployment,
  rs: ReplicaSet,
  newRevision: number,
  exists: boolean,
): boolean {
  let changed = copyDeploymentAnnotations(d, rs);
  rs.metadata.annotations ??= {};
  const annotations = rs.metadata.annotations;
  const oldRevision = annotations[REVISION_ANNOTATION];
  let oldRevisionInt = 0;
  if (oldRevision !== undefined && oldRevision !== '') {
    if (!/^[+-]?\d+$/.test(oldRevision)) return false;
    oldRevisionInt = Number(oldRevision);
  }
  if (oldRevisionInt < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (oldRevision !== undefined) {
      const history = annotations[REVISION_HISTORY_ANNOTATION] ?? '';
      if (history === '') annotations[REVISION_HISTORY_ANNOTATION] = oldRevision;
      else {
        let revisions = history.split(',');
        let total = history.length + oldRevision.length + 1;
        while (total > MAX_REV_HISTORY_LENGTH_IN_CHARS && revisions.length > 0) {
          total -= revisions[0]!.length + 1;
          revisions = revisions.slice(1);
        }
        if (total <= MAX_REV_HISTORY_LENGTH_IN_CHARS)
          annotations[REVISION_HISTORY_ANNOTATION] = [...revisions, oldRevision].join(',');
      }
    }
  }
  if (!exists && setReplicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

/** NewRSNewReplicas: how far the new ReplicaSet may be scaled up now. */
export function newRSNewReplicas(d: Deployment, all: (ReplicaSet | undefined)[], newRS: ReplicaSet): number {
  if (!isRollingUpdate(d)) return replicasOf(d);
  const desired = replicasOf(d);
  const current = replicaCount(all);
  const maxTotal = desired + maxSurge(d);
  if (current >= maxTotal) return replicasOf(newRS);
  const scaleUp = Math.min(maxTotal - current, desired - replicasOf(newRS));
  return replicasOf(newRS) + scaleUp;
}

/** IsSaturated: the new ReplicaSet runs every desired replica, all available. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const desired = Number.parseInt(rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION] ?? '', 10);
  if (Number.isNaN(desired)) return false;
  return (
    replicasOf(rs) === replicasOf(d) &&
    desired === replicasOf(d) &&
    (rs.status?.availableReplicas ?? 0) === replicasOf(d)
  );
}

/** FindActiveOrLatest: the one active ReplicaSet, or the newest when none is active. */
export function findActiveOrLatest(
  newRS: ReplicaSet | undefined,
  oldRSs: ReplicaSet[],
): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreationTimestamp(b, a));
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

/** Go's math.Round (half away from zero), as integer.RoundToInt32. */
const roundHalfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));

/** getReplicaSetFraction: this ReplicaSet's share of a scaling event, from max-replicas. */
function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  if (replicasOf(d) === 0) return -replicasOf(rs);
  const deploymentReplicas = replicasOf(d) + maxSurge(d);
  const annotated = Number.parseInt(rs.metadata.annotations?.[MAX_REPLICAS_ANNOTATION] ?? '', 10);
  // Without the annotation upstream falls back to the Deployment's current size.
  const before = Number.isNaN(annotated) || annotated === 0 ? (d.status?.replicas ?? 0) : annotated;
  if (before === 0) return 0;
  return roundHalfAway((replicasOf(rs) * deploymentReplicas) / before) - replicasOf(rs);
}

/** GetReplicaSetProportion. */
export function replicaSetProportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/** HasProgressDeadline: set and not MaxInt32 (which means "no deadline"). */
export function hasProgressDeadline(d: Deployment): boolean {
  const seconds = d.spec.progressDeadlineSeconds;
  return seconds !== undefined && seconds !== 2147483647;
}
