/**
 * The StatefulSet controller (pkg/controller/statefulset: stateful_set.go, stateful_set_control.go
 * updateStatefulSet, stateful_pod_control.go). For each set:
 * - the ControllerRevision of its template is found or created (controller-revisions.ts): the
 *   update revision; the current revision is status.currentRevision's, else the update revision;
 * - Pods `<set>-<ordinal>` for ordinals start … start+replicas-1 are created with their claims
 *   (`<template>-<set>-<ordinal>`, created first and never deleted on scale-down unless
 *   persistentVolumeClaimRetentionPolicy.whenScaled is Delete); failed or succeeded Pods are
 *   deleted to be made again. With podManagementPolicy OrderedReady one Pod at a time, each
 *   after all lower ordinals are Running and Ready (and available for minReadySeconds); with
 *   Parallel all at once;
 * - Pods above the range are deleted from the highest ordinal down, OrderedReady one at a time
 *   and only while all the others are healthy;
 * - RollingUpdate replaces Pods not at the update revision from the highest ordinal down to the
 *   partition, one at a time, each after the Pods above it are Running and Ready; OnDelete leaves
 *   that to whoever deletes them;
 * - status through `/status`: observedGeneration, replicas, readyReplicas, currentReplicas,
 *   updatedReplicas, availableReplicas, currentRevision, updateRevision, collisionCount; once every
 *   Pod is updated and ready the update revision becomes the current one (completeRollingUpdate);
 * - events as stateful_pod_control.go records them: `create Pod web-0 in StatefulSet web
 *   successful`, `delete Pod web-1 in StatefulSet web successful`, `create Claim data-web-0 Pod
 *   web-0 in StatefulSet web success`.
 */
import { typeKey } from '../api/service.ts';
import { StatusError } from '../errors.ts';
import { findByKind } from '../resources.ts';
import { matchesLabelSelectorObject } from '../selectors.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { ControllerQueue } from './controller-queue.ts';
import { claimObjects } from './controller-ref-manager.ts';
import {
  type ControllerRevision,
  ensureUpdateRevision,
  REVISION_LABEL,
  revisionTemplate,
  truncateHistory,
} from './controller-revisions.ts';
import { EventRecorder } from './event-recorder.ts';
import { isPodAvailable, isPodReady } from './pod-util.ts';
import { claimName, newClaims, newStatefulSetPod, ordinalOf, type StatefulSet } from './statefulset-pods.ts';
import { controllerOf, objectKeyOf, POD, type Pod, splitKey } from './workload-types.ts';

export const STATEFUL_SET = findByKind('apps/v1', 'StatefulSet')!;
const PVC = findByKind('v1', 'PersistentVolumeClaim')!;
const STS_KEY = typeKey(STATEFUL_SET);
const POD_KEY = typeKey(POD);
const PVC_KEY = typeKey(PVC);
const RETRY_AFTER_ERROR_MS = 1000;

const isCreated = (pod: Pod | undefined): pod is Pod => pod !== undefined;
const isTerminating = (pod: Pod) => !!pod.metadata.deletionTimestamp;
const isFailedOrDone = (pod: Pod) => pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';
const isRunningAndReady = (pod: Pod) => pod.status?.phase === 'Running' && isPodReady(pod);
const revisionOf = (pod: Pod) => pod.metadata.labels?.[REVISION_LABEL];

export class StatefulSetController implements SimController {
  private readonly queue: ControllerQueue;
  private readonly unsubscribe: () => void;
  private readonly events: EventRecorder;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new ControllerQueue(
      (key) => this.sync(key),
      (key, err) => deps.onError(`statefulset ${key}`, err),
    );
    this.events = new EventRecorder(deps.client, 'statefulset-controller');
    this.unsubscribe = deps.store.subscribe((event) => this.observe(event));
    for (const set of deps.store.list(STS_KEY)) this.queue.add(objectKeyOf(set));
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    if (event.typeKey === STS_KEY) {
      const key = objectKeyOf(event.object);
      if (event.type === 'DELETED') this.queue.forget(key);
      else this.queue.add(key);
      return;
    }
    if (event.typeKey !== POD_KEY) return;
    for (const pod of [event.object, event.previous]) {
      if (!pod) continue;
      const ref = controllerOf(pod);
      if (ref?.kind === 'StatefulSet') this.queue.add(`${pod.metadata.namespace}/${ref.name}`);
      else if (!ref && event.type !== 'DELETED') {
        for (const set of this.deps.store.list(STS_KEY, pod.metadata.namespace) as StatefulSet[])
          if (matchesLabelSelectorObject(set.spec.selector, pod.metadata.labels))
            this.queue.add(objectKeyOf(set));
      }
    }
  }

  private sync(key: string): void {
    const { namespace, name } = splitKey(key);
    const set = this.deps.store.get(STS_KEY, namespace, name) as StatefulSet | undefined;
    if (!set || set.metadata.deletionTimestamp) return;
    const { client, store } = this.deps;
    const { update, revisions } = ensureUpdateRevision(store, client, set);
    const current = revisions.find((cr) => cr.metadata.name === set.status?.currentRevision) ?? update;
    const pods = claimObjects(
      set,
      store.claimable(POD_KEY, namespace!, set.metadata.uid!) as Pod[],
      (pod) => matchesLabelSelectorObject(set.spec.selector, pod.metadata.labels) && ordinalOf(set, pod) >= 0,
      (next) => client.update(POD, next) as Pod,
    );
    let error: Error | undefined;
    try {
      this.updateStatefulSet(set, pods, current, update);
    } catch (err) {
      const terminating =
        err instanceof StatusError && err.details?.causes?.some((c) => c.reason === 'NamespaceTerminating');
      if (!terminating) error = err instanceof Error ? err : new Error(String(err));
    }
    // Status from what the Pods are now, this sync's creations and deletions included.
    const now = this.deps.store.list(POD_KEY, namespace) as Pod[];
    const owned = now.filter((p) => controllerOf(p)?.uid === set.metadata.uid);
    const status = this.computeStatus(set, owned, current, update);
    const live = new Set([current.metadata.name!, update.metadata.name!]);
    for (const p of owned) if (revisionOf(p)) live.add(revisionOf(p)!);
    truncateHistory(client, set, revisions, live);
    const stored = store.get(STS_KEY, namespace, name) as StatefulSet | undefined;
    if (stored && !semanticEqual(status, stored.status))
      client.update(STATEFUL_SET, { ...stored, status } as KubeObject, 'status');
    if (error) {
      this.queue.addLater(key, RETRY_AFTER_ERROR_MS);
      throw error;
    }
    const minReady = set.spec.minReadySeconds ?? 0;
    if (minReady > 0 && status.readyReplicas !== status.availableReplicas)
      this.queue.addLater(key, minReady * 1000);
  }

  /** updateStatefulSet's pod management: create, replace, condemn, roll. */
  private updateStatefulSet(
    set: StatefulSet,
    pods: Pod[],
    current: ControllerRevision,
    update: ControllerRevision,
  ): void {
    const replicaCount = set.spec.replicas ?? 1;
    const start = set.spec.ordinals?.start ?? 0;
    const monotonic = (set.spec.podManagementPolicy ?? 'OrderedReady') === 'OrderedReady';
    const minReady = set.spec.minReadySeconds ?? 0;
    const replicas: (Pod | undefined)[] = new Array(replicaCount).fill(undefined);
    const condemned: Pod[] = [];
    for (const pod of pods) {
      const ordinal = ordinalOf(set, pod);
      if (ordinal >= start && ordinal < start + replicaCount) replicas[ordinal - start] = pod;
      else condemned.push(pod);
    }
    condemned.sort((a, b) => ordinalOf(set, b) - ordinalOf(set, a));
    const partition =
      set.spec.updateStrategy?.type === 'RollingUpdate'
        ? (set.spec.updateStrategy.rollingUpdate?.partition ?? 0)
        : 0;
    const rolling = (set.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    const now = new Date();

    for (let i = 0; i < replicaCount; i++) {
      const ordinal = start + i;
      const pod = replicas[i];
      if (!isCreated(pod)) {
        // Ordinals below the partition keep the current revision during a rolling update.
        const fromCurrent = rolling && ordinal < partition;
        const rev = fromCurrent ? current : update;
        if (!this.createClaims(set, ordinal)) return;
        const created = this.deps.client.create(
          POD,
          newStatefulSetPod(set, revisionTemplate(rev), rev.metadata.name!, ordinal),
        ) as Pod;
        this.events.event(
          set,
          'Normal',
          'SuccessfulCreate',
          `create Pod ${created.metadata.name} in StatefulSet ${set.metadata.name} successful`,
        );
        if (monotonic) return;
        continue;
      }
      if (isFailedOrDone(pod) && !isTerminating(pod)) {
        this.deletePod(set, pod);
        if (monotonic) return;
        continue;
      }
      if (monotonic && (isTerminating(pod) || !isRunningAndReady(pod) || !isPodAvailable(pod, minReady, now)))
        return;
      this.createClaims(set, ordinal);
    }

    for (const pod of condemned) {
      if (isTerminating(pod)) {
        if (monotonic) return;
        continue;
      }
      // OrderedReady scales down only while every other Pod is healthy.
      const unhealthy = [...replicas, ...condemned].find(
        (p) => p && p !== pod && (isTerminating(p) || !isRunningAndReady(p)),
      );
      if (monotonic && unhealthy) return;
      if (set.spec.persistentVolumeClaimRetentionPolicy?.whenScaled === 'Delete')
        this.claimsFollowPod(set, pod);
      this.deletePod(set, pod);
      if (monotonic) return;
    }

    if (!rolling) return;
    for (let i = replicaCount - 1; i >= Math.max(0, partition - start); i--) {
      const pod = replicas[i];
      if (!pod) return;
      if (revisionOf(pod) !== update.metadata.name && !isTerminating(pod)) {
        this.deletePod(set, pod);
        return;
      }
      if (!isRunningAndReady(pod)) return;
    }
  }

  private deletePod(set: StatefulSet, pod: Pod): void {
    this.deps.client.delete(POD, pod.metadata.namespace, pod.metadata.name!);
    this.events.event(
      set,
      'Normal',
      'SuccessfulDelete',
      `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`,
    );
  }

  /**
   * createPersistentVolumeClaims: the claims an ordinal's Pod needs and that do not exist yet.
   * A claim the API refuses (a volumeClaimTemplate StatefulSet validation lets through, such as one
   * without a storage request) is a FailedCreate event and false: the Pod is not created, and the
   * set is tried again when it changes, not in a loop (upstream retries with a rate limit).
   */
  private createClaims(set: StatefulSet, ordinal: number): boolean {
    for (const claim of newClaims(set, ordinal)) {
      if (this.deps.store.get(PVC_KEY, set.metadata.namespace, claim.metadata.name!)) continue;
      try {
        this.deps.client.create(PVC, claim);
      } catch (err) {
        if (!(err instanceof StatusError) || err.code >= 500) throw err;
        this.events.event(
          set,
          'Warning',
          'FailedCreate',
          `create Claim ${claim.metadata.name} for Pod ${set.metadata.name}-${ordinal} in StatefulSet ${set.metadata.name} failed error: ${err.message}`,
        );
        return false;
      }
      this.events.event(
        set,
        'Normal',
        'SuccessfulCreate',
        `create Claim ${claim.metadata.name} Pod ${set.metadata.name}-${ordinal} in StatefulSet ${set.metadata.name} success`,
      );
    }
    return true;
  }

  /**
   * whenScaled: Delete — the condemned Pod becomes an owner of its claims
   * (updateClaimOwnerRefForSetAndPod), so the garbage collector removes them after the Pod.
   */
  private claimsFollowPod(set: StatefulSet, pod: Pod): void {
    const ordinal = ordinalOf(set, pod);
    for (const template of set.spec.volumeClaimTemplates ?? []) {
      const claim = this.deps.store.get(PVC_KEY, set.metadata.namespace, claimName(template, set, ordinal));
      if (!claim || claim.metadata.ownerReferences?.some((r) => r.uid === pod.metadata.uid)) continue;
      const next = clone(claim);
      next.metadata.ownerReferences = [
        ...(next.metadata.ownerReferences ?? []).filter((r) => r.uid !== set.metadata.uid),
        { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name!, uid: pod.metadata.uid! },
      ];
      this.deps.client.update(PVC, next);
    }
  }

  private computeStatus(
    set: StatefulSet,
    pods: Pod[],
    current: ControllerRevision,
    update: ControllerRevision,
  ): Record<string, unknown> {
    const minReady = set.spec.minReadySeconds ?? 0;
    const now = new Date();
    let replicas = 0;
    let ready = 0;
    let available = 0;
    let currentReplicas = 0;
    let updated = 0;
    for (const pod of pods) {
      if (isTerminating(pod)) continue;
      replicas++;
      if (isRunningAndReady(pod)) {
        ready++;
        if (isPodAvailable(pod, minReady, now)) available++;
      }
      if (revisionOf(pod) === current.metadata.name) currentReplicas++;
      if (revisionOf(pod) === update.metadata.name) updated++;
    }
    let currentRevision = current.metadata.name!;
    // completeRollingUpdate: every Pod updated and ready makes the update revision current.
    const rolling = (set.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    if (rolling && updated === replicas && ready === replicas) {
      currentReplicas = updated;
      currentRevision = update.metadata.name!;
    }
    // StatefulSetStatus: replicas and availableReplicas are always serialized, the rest omitempty.
    return {
      ...(set.metadata.generation ? { observedGeneration: set.metadata.generation } : {}),
      replicas,
      ...(ready ? { readyReplicas: ready } : {}),
      ...(currentReplicas ? { currentReplicas } : {}),
      ...(updated ? { updatedReplicas: updated } : {}),
      currentRevision,
      updateRevision: update.metadata.name!,
      collisionCount: set.status?.collisionCount ?? 0,
      availableReplicas: available,
    };
  }
}
