/**
 * The ReplicaSets of a Deployment, as sync.go manages them: finding the new one (template equal
 * but for pod-template-hash) and the old ones, creating the new one (`<deployment>-<hash>`, owned
 * by the Deployment, revision above the old ones, hash collisions resolved through
 * status.collisionCount), scaling with the desired/max-replicas annotations, and deleting the
 * oldest beyond revisionHistoryLimit.
 */
import { typeKey } from '../api/service.ts';
import { StatusError } from '../errors.ts';
import { clone, type KubeObject } from '../types.ts';
import type { ControllerDeps } from './controller.ts';
import {
  FAILED_RS_CREATE_REASON,
  FOUND_NEW_RS_REASON,
  getCondition,
  NEW_RS_REASON,
  newCondition,
  setCondition,
} from './deployment-status.ts';
import {
  byCreationTimestamp,
  byRevision,
  hasProgressDeadline,
  maxRevision,
  maxSurge,
  newRSNewReplicas,
  REVISION_ANNOTATION,
  replicasAnnotationsNeedUpdate,
  replicasOf,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
} from './deployment-util.ts';
import { EventRecorder } from './event-recorder.ts';
import { computeHash, equalIgnoreHash, POD_TEMPLATE_HASH_LABEL } from './pod-template-hash.ts';
import {
  controllerOf,
  controllerRef,
  type Deployment,
  type DeploymentStatus,
  REPLICA_SET,
  type ReplicaSet,
} from './workload-types.ts';

const RS_KEY = typeKey(REPLICA_SET);

/** Ends a sync quietly (a hash collision was recorded, or the namespace is going away). */
export class SyncAborted extends Error {}

export function isNamespaceTerminating(err: unknown): boolean {
  return (
    err instanceof StatusError && !!err.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')
  );
}

/** The Deployment writes the ReplicaSet steps need (the controller keeps its working copy current). */
export interface DeploymentWriter {
  writeStatus(d: Deployment, status: DeploymentStatus): void;
  syncDeploymentRevision(d: Deployment, rev: string): void;
}

export class DeploymentReplicaSets {
  /** The deployment controller's ScalingReplicaSet events (deployment/sync.go scaleReplicaSet). */
  private readonly events: EventRecorder;

  constructor(
    private readonly deps: ControllerDeps,
    private readonly writer: DeploymentWriter,
  ) {
    this.events = new EventRecorder(deps.client, 'deployment-controller');
  }

  /** getAllReplicaSetsAndSyncRevision (FindOldReplicaSets + getNewReplicaSet). */
  getAllReplicaSetsAndSyncRevision(
    d: Deployment,
    rsList: ReplicaSet[],
    create: boolean,
  ): { newRS?: ReplicaSet; oldRSs: ReplicaSet[] } {
    // Re-read: an earlier step of this sync may have written one of them.
    const current = rsList.flatMap((rs) => {
      const stored = this.deps.store.get(RS_KEY, rs.metadata.namespace, rs.metadata.name!);
      return stored?.metadata.uid === rs.metadata.uid ? [clone(stored as ReplicaSet)] : [];
    });
    const existing = findNewReplicaSet(d, current);
    const oldRSs = current.filter((rs) => rs.metadata.uid !== existing?.metadata.uid);
    const newRS = this.getNewReplicaSet(d, existing, oldRSs, create);
    return { ...(newRS ? { newRS } : {}), oldRSs };
  }

  /**
   * getNewReplicaSet (sync.go): the ReplicaSet for the current template, its revision raised
   * above every old one (so rolling back to an earlier template reuses that ReplicaSet under a new
   * revision), created when missing and asked to.
   */
  private getNewReplicaSet(
    d: Deployment,
    existing: ReplicaSet | undefined,
    oldRSs: ReplicaSet[],
    create: boolean,
  ): ReplicaSet | undefined {
    const newRevision = maxRevision(oldRSs) + 1;
    const now = new Date();
    if (existing) {
      const copy = clone(existing);
      const annotationsUpdated = setNewReplicaSetAnnotations(d, copy, newRevision, true);
      if (annotationsUpdated || (copy.spec.minReadySeconds ?? 0) !== (d.spec.minReadySeconds ?? 0)) {
        if (d.spec.minReadySeconds) copy.spec.minReadySeconds = d.spec.minReadySeconds;
        else delete copy.spec.minReadySeconds;
        return this.updateReplicaSet(copy);
      }
      // The Deployment takes the revision its new ReplicaSet carries.
      this.writer.syncDeploymentRevision(d, copy.metadata.annotations?.[REVISION_ANNOTATION] ?? '');
      if (hasProgressDeadline(d) && !getCondition(d.status, 'Progressing')) {
        const status = clone(d.status ?? {});
        const msg = `Found new replica set "${copy.metadata.name}"`;
        setCondition(status, newCondition('Progressing', 'True', FOUND_NEW_RS_REASON, msg, now));
        this.writer.writeStatus(d, status);
      }
      return copy;
    }
    if (!create) return undefined;
    return this.createNewReplicaSet(d, oldRSs, newRevision, now);
  }

  private createNewReplicaSet(
    d: Deployment,
    oldRSs: ReplicaSet[],
    newRevision: number,
    now: Date,
  ): ReplicaSet {
    const template = clone(d.spec.template);
    const hash = computeHash(template, d.status?.collisionCount);
    template.metadata = {
      ...template.metadata,
      labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash },
    };
    const selector = clone(d.spec.selector);
    selector.matchLabels = { ...selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash };
    const newRS: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        // Deterministic, for idempotence.
        name: `${d.metadata.name}-${hash}`,
        namespace: d.metadata.namespace!,
        ownerReferences: [controllerRef(d)],
        labels: { ...template.metadata.labels },
      },
      spec: {
        replicas: 0,
        ...(d.spec.minReadySeconds ? { minReadySeconds: d.spec.minReadySeconds } : {}),
        selector,
        template,
      },
    };
    newRS.spec.replicas = newRSNewReplicas(d, [...oldRSs, newRS], newRS);
    setNewReplicaSetAnnotations(d, newRS, newRevision, false);
    let created: ReplicaSet;
    let alreadyExists = false;
    try {
      created = this.deps.client.create(REPLICA_SET, newRS as KubeObject) as ReplicaSet;
    } catch (err) {
      if (err instanceof StatusError && err.reason === 'AlreadyExists') {
        const rs = this.deps.store.get(RS_KEY, d.metadata.namespace, newRS.metadata.name!) as ReplicaSet;
        if (controllerOf(rs)?.uid === d.metadata.uid && equalIgnoreHash(d.spec.template, rs.spec.template)) {
          created = clone(rs);
          alreadyExists = true;
        } else {
          // A hash collision: bump collisionCount and let the status write bring us back.
          const status = clone(d.status ?? {});
          status.collisionCount = (status.collisionCount ?? 0) + 1;
          this.writer.writeStatus(d, status);
          throw new SyncAborted();
        }
      } else if (isNamespaceTerminating(err)) {
        throw new SyncAborted();
      } else {
        if (hasProgressDeadline(d)) {
          const status = clone(d.status ?? {});
          const msg = `Failed to create new replica set "${newRS.metadata.name}": ${(err as Error).message}`;
          setCondition(status, newCondition('Progressing', 'False', FAILED_RS_CREATE_REASON, msg, now));
          this.writer.writeStatus(d, status);
        }
        throw err;
      }
    }
    this.writer.syncDeploymentRevision(d, String(newRevision));
    if (!alreadyExists && replicasOf(created) > 0)
      this.events.event(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${created.metadata.name} from 0 to ${replicasOf(created)}`,
      );
    if (!alreadyExists && hasProgressDeadline(d)) {
      const status = clone(d.status ?? {});
      const msg = `Created new replica set "${created.metadata.name}"`;
      setCondition(status, newCondition('Progressing', 'True', NEW_RS_REASON, msg, now));
      this.writer.writeStatus(d, status);
    }
    return created;
  }

  private updateReplicaSet(rs: ReplicaSet): ReplicaSet {
    return clone(this.deps.client.update(REPLICA_SET, rs as KubeObject) as ReplicaSet);
  }

  /** scaleReplicaSet: resize and keep desired/max-replicas in step with the Deployment. */
  scaleReplicaSet(rs: ReplicaSet, replicas: number, d: Deployment): { scaled: boolean; rs: ReplicaSet } {
    const sizeChanges = replicasOf(rs) !== replicas;
    const desired = replicasOf(d);
    const max = desired + maxSurge(d);
    if (!sizeChanges && !replicasAnnotationsNeedUpdate(rs, desired, max)) return { scaled: false, rs };
    const copy = clone(rs);
    copy.spec.replicas = replicas;
    setReplicasAnnotations(copy, desired, max);
    const updated = this.updateReplicaSet(copy);
    if (sizeChanges) {
      const direction = replicas > replicasOf(rs) ? 'up' : 'down';
      this.events.event(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${direction} replica set ${rs.metadata.name} from ${replicasOf(rs)} to ${replicas}`,
      );
    }
    return { scaled: sizeChanges, rs: updated };
  }

  /**
   * cleanupDeployment: delete the oldest old ReplicaSets beyond revisionHistoryLimit, sparing any
   * that still has Pods or whose latest spec its controller has not observed.
   */
  cleanupDeployment(oldRSs: ReplicaSet[], d: Deployment): void {
    const limit = d.spec.revisionHistoryLimit;
    if (limit === undefined) return;
    const cleanable = oldRSs
      .map((rs) => this.freshReplicaSet(rs))
      .filter((rs) => !rs.metadata.deletionTimestamp)
      .sort(byRevision);
    const diff = cleanable.length - limit;
    for (const rs of cleanable.slice(0, Math.max(0, diff))) {
      const busy =
        (rs.status?.replicas ?? 0) !== 0 ||
        replicasOf(rs) !== 0 ||
        (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0);
      if (busy) continue;
      if (
        this.deps.store.get(RS_KEY, rs.metadata.namespace, rs.metadata.name!)?.metadata.uid ===
        rs.metadata.uid
      )
        this.deps.client.delete(REPLICA_SET, rs.metadata.namespace, rs.metadata.name!);
    }
  }

  /** The stored ReplicaSet (this sync may have scaled it), or the given one when it is gone. */
  freshReplicaSet(rs: ReplicaSet): ReplicaSet {
    return (
      (this.deps.store.get(RS_KEY, rs.metadata.namespace, rs.metadata.name!) as ReplicaSet | undefined) ?? rs
    );
  }
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's, hash aside. */
function findNewReplicaSet(d: Deployment, rsList: ReplicaSet[]): ReplicaSet | undefined {
  return [...rsList]
    .sort(byCreationTimestamp)
    .find((rs) => equalIgnoreHash(rs.spec.template, d.spec.template));
}
