/**
 * The Deployment controller (pkg/controller/deployment), asynchronous like kube-controller-manager's:
 * each Deployment gets ReplicaSets named `<deployment>-<pod-template-hash>` owned by it (controller,
 * blockOwnerDeletion), rolled per its strategy (deployment-rollout.ts) with
 * `settings.rolloutStepDelayMs` between steps, old ReplicaSets kept up to revisionHistoryLimit,
 * and status written through `/status` — counts plus the Available and Progressing conditions
 * kubectl's `rollout status` reads, including ProgressDeadlineExceeded, re-checked on a timer.
 * Paused Deployments are scaled and reported but not rolled.
 *
 * A Deployment is synced after the step delay whenever it, one of its ReplicaSets, or (for
 * Recreate) one of their Pods changes; one sync is one upstream syncDeployment.
 */
import { typeKey } from '../api/service.ts';
import { matchesLabelSelectorObject } from '../selectors.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { ControllerQueue } from './controller-queue.ts';
import { claimObjects } from './controller-ref-manager.ts';
import { DeploymentReplicaSets, isNamespaceTerminating, SyncAborted } from './deployment-replicasets.ts';
import {
  type DeploymentOps,
  isScalingEvent,
  rolloutRecreate,
  rolloutRolling,
  syncScaling,
} from './deployment-rollout.ts';
import {
  calculateStatus,
  deploymentComplete,
  getCondition,
  newCondition,
  PAUSED_REASON,
  RESUMED_REASON,
  rolloutStatus,
  setCondition,
  stuckRecheckDelay,
  TIMED_OUT_REASON,
  withoutZeroCounts,
} from './deployment-status.ts';
import { hasProgressDeadline, REVISION_ANNOTATION, replicasOf } from './deployment-util.ts';
import { setDeploymentRevision } from './registry-writes.ts';
import {
  controllerOf,
  DEPLOYMENT,
  type Deployment,
  type DeploymentStatus,
  objectKeyOf,
  POD,
  type Pod,
  REPLICA_SET,
  type ReplicaSet,
  splitKey,
} from './workload-types.ts';

const DEPLOYMENT_KEY = typeKey(DEPLOYMENT);
const RS_KEY = typeKey(REPLICA_SET);
const POD_KEY = typeKey(POD);

export class DeploymentController implements SimController {
  private readonly queue: ControllerQueue;
  private readonly unsubscribe: () => void;
  private readonly ops: DeploymentOps;
  private readonly replicaSets: DeploymentReplicaSets;
  /** Consecutive failed syncs per Deployment, for the retry back-off. */
  private readonly failures = new Map<string, number>();

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new ControllerQueue(
      (key) => this.sync(key),
      (key, err) => deps.onError(`deployment ${key}`, err),
    );
    const replicaSets = new DeploymentReplicaSets(deps, {
      writeStatus: (d, status) => this.writeStatus(d, status),
      syncDeploymentRevision: (d, rev) => this.syncDeploymentRevision(d, rev),
    });
    this.replicaSets = replicaSets;
    this.ops = {
      replicaSets: (d, rsList, create) => replicaSets.getAllReplicaSetsAndSyncRevision(d, rsList, create),
      scaleIfNeeded: (rs, n, d) =>
        replicasOf(rs) === n ? { scaled: false, rs } : replicaSets.scaleReplicaSet(rs, n, d),
      scale: (rs, n, d) => replicaSets.scaleReplicaSet(rs, n, d),
      syncRolloutStatus: (all, newRS, d) => this.syncRolloutStatus(all, newRS, d),
      syncDeploymentStatus: (all, newRS, d) =>
        this.writeStatus(d, calculateStatus(all, newRS, d, new Date())),
      cleanupDeployment: (oldRSs, d) => replicaSets.cleanupDeployment(oldRSs, d),
      isComplete: (d) => deploymentComplete(d, d.status ?? {}),
    };
    this.unsubscribe = deps.store.subscribe((event) => this.observe(event));
    for (const d of deps.store.list(DEPLOYMENT_KEY)) this.queue.add(objectKeyOf(d));
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  // ------------------------------------------------------------------ events

  private step(key: string): void {
    this.queue.addAfterStep(key, this.deps.settings.rolloutStepDelayMs);
  }

  private observe(event: StoreEvent): void {
    if (event.typeKey === DEPLOYMENT_KEY) {
      const key = objectKeyOf(event.object);
      if (event.type === 'DELETED') {
        this.queue.forget(key);
        this.failures.delete(key);
      } else this.step(key);
    } else if (event.typeKey === RS_KEY) {
      // addReplicaSet/updateReplicaSet/deleteReplicaSet: the owner before and after, or for an
      // orphan the Deployments that could adopt it.
      for (const rs of [event.object, event.previous]) {
        if (!rs) continue;
        const ref = controllerOf(rs);
        if (ref?.kind === 'Deployment') this.step(`${rs.metadata.namespace}/${ref.name}`);
        else if (!ref && event.type !== 'DELETED') {
          for (const d of this.deps.store.list(DEPLOYMENT_KEY, rs.metadata.namespace) as Deployment[]) {
            if (matchesLabelSelectorObject(d.spec.selector, rs.metadata.labels)) this.step(objectKeyOf(d));
          }
        }
      }
    } else if (event.typeKey === POD_KEY && event.type === 'DELETED') {
      // deletePod: a Recreate rollout waits for the old Pods to be gone.
      const rsRef = controllerOf(event.object);
      if (rsRef?.kind !== 'ReplicaSet') return;
      const rs = this.deps.store.get(RS_KEY, event.object.metadata.namespace, rsRef.name);
      const dRef = rs && controllerOf(rs);
      if (dRef?.kind === 'Deployment') this.step(`${event.object.metadata.namespace}/${dRef.name}`);
    }
  }

  // ------------------------------------------------------------------ syncDeployment

  private get(namespace: string, name: string): Deployment | undefined {
    const d = this.deps.store.get(DEPLOYMENT_KEY, namespace, name) as Deployment | undefined;
    return d && clone(d);
  }

  /** Brings the working copy up to date with the store after this sync wrote the Deployment. */
  private reload(d: Deployment): void {
    const current = this.get(d.metadata.namespace!, d.metadata.name!);
    if (!current) return;
    d.metadata = current.metadata;
    d.spec = current.spec;
    if (current.status) d.status = current.status;
    else delete d.status;
  }

  private sync(key: string): void {
    const { namespace, name } = splitKey(key);
    const d = this.get(namespace, name);
    if (!d) return;
    try {
      this.syncDeployment(d);
      this.failures.delete(key);
    } catch (err) {
      if (err instanceof SyncAborted || isNamespaceTerminating(err)) return;
      // The workqueue's rate-limited retry: 1 s, doubling, at most a minute.
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      this.queue.addLater(key, Math.min(60_000, 1000 * 2 ** (failures - 1)));
      throw err;
    }
  }

  /** syncDeployment (deployment_controller.go): one step for one Deployment. */
  private syncDeployment(d: Deployment): void {
    const rsList = this.replicaSetsFor(d);
    if (d.metadata.deletionTimestamp) {
      // syncStatusOnly: a Deployment being deleted is reported on, not rolled.
      const { newRS, oldRSs } = this.replicaSets.getAllReplicaSetsAndSyncRevision(d, rsList, false);
      this.writeStatus(d, calculateStatus([...oldRSs, newRS], newRS, d, new Date()));
      return;
    }
    this.checkPausedConditions(d);
    if (d.spec.paused || isScalingEvent(this.ops, d, rsList)) {
      syncScaling(this.ops, d, rsList);
      return;
    }
    if (d.spec.strategy?.type === 'Recreate')
      rolloutRecreate(this.ops, d, rsList, this.podsByReplicaSet(rsList));
    else rolloutRolling(this.ops, d, rsList);
  }

  /** getReplicaSetsForDeployment: claim (adopt/release) the ReplicaSets the selector matches. */
  private replicaSetsFor(d: Deployment): ReplicaSet[] {
    return claimObjects(
      d,
      this.deps.store.claimable(RS_KEY, d.metadata.namespace!, d.metadata.uid!) as ReplicaSet[],
      (rs) => matchesLabelSelectorObject(d.spec.selector, rs.metadata.labels),
      (next) => this.deps.client.update(REPLICA_SET, next) as ReplicaSet,
    ).map((rs) => clone(rs));
  }

  /** getPodMapForDeployment: Pods grouped by the uid of the owning ReplicaSet. */
  private podsByReplicaSet(rsList: ReplicaSet[]): Map<string, Pod[]> {
    // From the store's controller index: the namespace's other Pods are never looked at.
    const map = new Map<string, Pod[]>();
    for (const rs of rsList) {
      const { uid, namespace } = rs.metadata;
      const pods = this.deps.store.controlledBy(POD_KEY, uid!) as Pod[];
      map.set(
        uid!,
        pods.filter((pod) => pod.metadata.namespace === namespace),
      );
    }
    return map;
  }

  /**
   * checkPausedConditions: Progressing Unknown/DeploymentPaused while paused and
   * DeploymentResumed after, so time spent paused never counts against the deadline.
   */
  private checkPausedConditions(d: Deployment): void {
    if (!hasProgressDeadline(d)) return;
    const cond = getCondition(d.status, 'Progressing');
    if (cond?.reason === TIMED_OUT_REASON) return;
    const pausedExists = cond?.reason === PAUSED_REASON;
    const status: DeploymentStatus = clone(d.status ?? {});
    const now = new Date();
    if (d.spec.paused && !pausedExists)
      setCondition(
        status,
        newCondition('Progressing', 'Unknown', PAUSED_REASON, 'Deployment is paused', now),
      );
    else if (!d.spec.paused && pausedExists)
      setCondition(
        status,
        newCondition('Progressing', 'Unknown', RESUMED_REASON, 'Deployment is resumed', now),
      );
    else return;
    this.writeStatus(d, status);
  }

  // ------------------------------------------------------------------ status

  private syncDeploymentRevision(d: Deployment, rev: string): void {
    if (d.metadata.annotations?.[REVISION_ANNOTATION] === rev) return;
    setDeploymentRevision(this.deps.store, d.metadata.namespace!, d.metadata.name!, rev);
    this.reload(d);
  }

  /** Writes `status` through `/status` when it differs from what is stored; `d` follows. */
  private writeStatus(d: Deployment, status: DeploymentStatus): void {
    const current = this.deps.store.get(DEPLOYMENT_KEY, d.metadata.namespace, d.metadata.name!);
    if (!current) return;
    const next = withoutZeroCounts(status);
    if (semanticEqual(next, current.status)) return;
    this.deps.client.update(DEPLOYMENT, { ...current, status: next } as KubeObject, 'status');
    this.reload(d);
  }

  /** syncRolloutStatus (progress.go): write the estimate, or re-check the deadline later. */
  private syncRolloutStatus(
    all: (ReplicaSet | undefined)[],
    newRS: ReplicaSet | undefined,
    d: Deployment,
  ): void {
    const fresh = all.map((rs) => rs && this.replicaSets.freshReplicaSet(rs));
    const freshNew = newRS && this.replicaSets.freshReplicaSet(newRS);
    const now = new Date();
    const status = rolloutStatus(fresh, freshNew, d, now);
    if (!semanticEqual(withoutZeroCounts(status), d.status)) {
      this.writeStatus(d, status);
      return;
    }
    const delay = stuckRecheckDelay(d, status, now);
    if (delay !== undefined) this.queue.addLater(objectKeyOf(d), delay);
  }
}
