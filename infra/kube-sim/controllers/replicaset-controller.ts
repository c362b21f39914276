/**
 * The ReplicaSet controller (pkg/controller/replicaset/replica_set.go), asynchronous like the real
 * one: for each ReplicaSet it claims the Pods its selector matches (adopting orphans, releasing
 * Pods whose labels no longer match), creates Pods from the template (`<rs>-<5 random chars>`
 * through generateName, labels, annotations and finalizers of the template, a controller
 * reference with blockOwnerDeletion) or deletes the surplus in upstream's order, then writes
 * status through `/status` (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas,
 * observedGeneration, ReplicaFailure when Pods cannot be created).
 */
import { timestamp } from '../api/metadata.ts';
import { typeKey } from '../api/service.ts';
import { StatusError } from '../errors.ts';
import { matchesLabelSelectorObject } from '../selectors.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { ControllerQueue } from './controller-queue.ts';
import { claimObjects } from './controller-ref-manager.ts';
import { replicasOf } from './deployment-util.ts';
import { EventRecorder } from './event-recorder.ts';
import { deletionOrder, isPodActive, isPodAvailable, isPodReady } from './pod-util.ts';
import {
  controllerOf,
  controllerRef,
  objectKeyOf,
  POD,
  type Pod,
  REPLICA_SET,
  type ReplicaSet,
  type ReplicaSetStatus,
  splitKey,
} from './workload-types.ts';

const RS_KEY = typeKey(REPLICA_SET);
const POD_KEY = typeKey(POD);
/** replicaset.BurstReplicas: at most this many creations or deletions per sync. */
const BURST_REPLICAS = 500;
/** Stands in for the workqueue's rate-limited retry after a failed sync. */
const RETRY_AFTER_ERROR_MS = 1000;

export class ReplicaSetController implements SimController {
  private readonly queue: ControllerQueue;
  private readonly unsubscribe: () => void;
  /** RealPodControl's events: `Created pod: x`, `Deleted pod: x` (controller_utils.go). */
  private readonly events: EventRecorder;

  constructor(private readonly deps: ControllerDeps) {
    this.events = new EventRecorder(deps.client, 'replicaset-controller');
    this.queue = new ControllerQueue(
      (key) => this.sync(key),
      (key, err) => deps.onError(`replicaset ${key}`, err),
    );
    this.unsubscribe = deps.store.subscribe((event) => this.observe(event));
    for (const rs of deps.store.list(RS_KEY)) this.queue.add(objectKeyOf(rs));
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    if (event.typeKey === RS_KEY) {
      const key = objectKeyOf(event.object);
      if (event.type === 'DELETED') this.queue.forget(key);
      else this.queue.add(key);
      return;
    }
    if (event.typeKey !== POD_KEY) return;
    // addPod/updatePod/deletePod: the owning ReplicaSet (before and after a change of owner), or
    // for an orphan every ReplicaSet that could adopt it.
    for (const pod of [event.object, event.previous]) {
      if (!pod) continue;
      const ref = controllerOf(pod);
      if (ref) {
        if (ref.kind === 'ReplicaSet') this.queue.add(`${pod.metadata.namespace}/${ref.name}`);
      } else if (event.type !== 'DELETED') {
        for (const rs of this.deps.store.list(RS_KEY, pod.metadata.namespace) as ReplicaSet[]) {
          if (matchesLabelSelectorObject(rs.spec.selector, pod.metadata.labels))
            this.queue.add(objectKeyOf(rs));
        }
      }
    }
  }

  private sync(key: string): void {
    const { namespace, name } = splitKey(key);
    const rs = this.deps.store.get(RS_KEY, namespace, name) as ReplicaSet | undefined;
    if (!rs) return;
    const now = new Date();
    const pods = claimObjects(
      rs,
      this.deps.store.claimable(POD_KEY, namespace!, rs.metadata.uid!) as Pod[],
      (pod) => matchesLabelSelectorObject(rs.spec.selector, pod.metadata.labels),
      (next) => this.deps.client.update(POD, next) as Pod,
    );
    const active = pods.filter(isPodActive);
    let manageError: Error | undefined;
    if (!rs.metadata.deletionTimestamp) manageError = this.manageReplicas(active, rs);
    // As upstream, status counts the Pods seen before this sync's changes: their events bring
    // the ReplicaSet back for the next count.
    const status = calculateStatus(rs, active, manageError, now);
    const current = this.deps.store.get(RS_KEY, namespace, name) as ReplicaSet | undefined;
    if (current && !semanticEqual(status, current.status)) {
      this.deps.client.update(REPLICA_SET, { ...current, status } as KubeObject, 'status');
    }
    const minReady = rs.spec.minReadySeconds ?? 0;
    if (manageError) this.queue.addLater(key, RETRY_AFTER_ERROR_MS);
    else if (
      minReady > 0 &&
      (status.readyReplicas ?? 0) === replicasOf(rs) &&
      (status.availableReplicas ?? 0) !== replicasOf(rs)
    ) {
      // Pods become available minReadySeconds after they became ready: look again then.
      this.queue.addLater(key, minReady * 1000);
    }
  }

  /** manageReplicas: create the missing Pods or delete the surplus; the first error stops it. */
  private manageReplicas(active: Pod[], rs: ReplicaSet): Error | undefined {
    const diff = active.length - replicasOf(rs);
    try {
      if (diff < 0) {
        for (let i = 0; i < Math.min(-diff, BURST_REPLICAS); i++) {
          const created = this.deps.client.create(POD, podFromTemplate(rs));
          this.events.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
        }
      } else if (diff > 0) {
        const victims = [...active].sort(deletionOrder).slice(0, Math.min(diff, BURST_REPLICAS));
        for (const pod of victims) {
          if (this.deps.store.get(POD_KEY, pod.metadata.namespace, pod.metadata.name!)) {
            this.deps.client.delete(POD, pod.metadata.namespace, pod.metadata.name!);
            this.events.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
          }
        }
      }
    } catch (err) {
      // A terminating namespace refuses every creation; upstream does not report that.
      const terminating =
        err instanceof StatusError && err.details?.causes?.some((c) => c.reason === 'NamespaceTerminating');
      if (terminating) return undefined;
      return err instanceof Error ? err : new Error(String(err));
    }
    return undefined;
  }
}

/** controller.GetPodFromTemplate: what a ReplicaSet's Pods are made of. */
function podFromTemplate(rs: ReplicaSet): KubeObject {
  const meta = rs.spec.template.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rs.metadata.name}-`,
      namespace: rs.metadata.namespace!,
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [controllerRef(rs)],
    },
    spec: clone(rs.spec.template.spec ?? { containers: [] }),
  };
}

/**
 * calculateStatus (replica_set_utils.go): Pods fully labeled (matching the template's labels),
 * ready, and available for minReadySeconds; ReplicaFailure while Pods cannot be created or deleted.
 */
function calculateStatus(
  rs: ReplicaSet,
  active: Pod[],
  error: Error | undefined,
  now: Date,
): ReplicaSetStatus {
  const templateLabels = rs.spec.template.metadata?.labels ?? {};
  const minReady = rs.spec.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of active) {
    const labels = pod.metadata.labels ?? {};
    if (Object.entries(templateLabels).every(([k, v]) => labels[k] === v)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReady, now)) available++;
    }
  }
  let conditions = rs.status?.conditions ?? [];
  const failure = conditions.find((c) => c.type === 'ReplicaFailure');
  if (error && !failure) {
    const diff = active.length - replicasOf(rs);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    conditions = [
      ...conditions,
      {
        type: 'ReplicaFailure',
        status: 'True',
        lastTransitionTime: timestamp(now),
        ...(reason ? { reason } : {}),
        message: error.message,
      },
    ];
  } else if (!error && failure) {
    conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
  }
  // ReplicaSetStatus: replicas is always serialized, the other counts are omitempty.
  return {
    replicas: active.length,
    ...(fullyLabeled ? { fullyLabeledReplicas: fullyLabeled } : {}),
    ...(ready ? { readyReplicas: ready } : {}),
    ...(available ? { availableReplicas: available } : {}),
    ...(rs.metadata.generation ? { observedGeneration: rs.metadata.generation } : {}),
    ...(conditions.length ? { conditions } : {}),
  };
}
