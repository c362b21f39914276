/**
 * ReleaseCluster: what the release engine reads and writes of a cluster's objects, besides release
 * history — the live copies (from informer caches), server-side apply and delete, a read past the
 * caches, discovery of a kind's scope, and the pods' diagnosis of a failed rollout. The real one is
 * built from a KubeConfig (kube-release-cluster.ts); engine decision tests pass an in-memory fake
 * (test/fixtures/releases/memory-cluster.ts) with a MemoryReleaseHistory, and need no kube-sim.
 * The shapes are those of LiveObjects and ObjectWriter, which the real one is made of, so the
 * engine calls the same methods either way.
 */
import type * as k8s from '@kubernetes/client-node';
import type { ObjectRef, ReleaseObject } from '../storage/types.ts';
import type { ResourceInfo } from './live-objects.ts';
import type { PullSecretLeak } from './pull-secret-leaks.ts';

/** Live objects longshore manages, from memory (LiveObjects: informer caches). */
export interface LiveReader {
  /** Plural and scope of a kind; PermanentError when the server does not serve it. */
  resource(apiVersion: string, kind: string): Promise<ResourceInfo>;
  /** The live object carrying longshore's managed-by label, or undefined. */
  get(ref: ObjectRef, signal?: AbortSignal): Promise<k8s.KubernetesObject | undefined>;
  /** Every managed object of a namespaced kind, in all namespaces. */
  listEverywhere(apiVersion: string, kind: string, signal?: AbortSignal): Promise<k8s.KubernetesObject[]>;
  /** Calls `listener` on every change of the objects of `refs`' kinds; returns the unsubscribe function. */
  onChange(refs: readonly ObjectRef[], listener: () => void, signal?: AbortSignal): Promise<() => void>;
}

/**
 * How a delete treats the object's dependents: Background (the object goes at once, the garbage
 * collector removes its ReplicaSets and pods after it) or Foreground (the object waits, with a
 * deletionTimestamp, until its dependents are gone).
 */
export type DeletePropagation = 'Background' | 'Foreground';

/**
 * A write that must not land over anyone else's (UpgradeInput.onlyOver): `{ resourceVersion }` —
 * only while the API server still has the object at that version, so a write or a delete by
 * anyone else since fails it (a replace with that resourceVersion, not an apply: an apply would
 * create a deleted object again); `'absent'` — only while there is no such object (a create).
 */
export type WriteCondition = { resourceVersion: string } | 'absent';

/** Writes to release objects (ObjectWriter: server-side apply, Background deletes unless asked). */
export interface ObjectWrites {
  /**
   * Applies the object (as the only owner of what it sets); `onLeak`: see pull-secret-leaks.ts.
   * With `condition`, writes it only under that condition (WriteCondition), else throws
   * ReleaseChangedError.
   */
  apply(
    object: ReleaseObject,
    signal?: AbortSignal,
    onLeak?: (leak: PullSecretLeak) => void,
    condition?: WriteCondition,
  ): Promise<k8s.KubernetesObject>;
  /** Deletes the object (Background unless `propagation` says otherwise); false when it was already gone. */
  delete(ref: ObjectRef, signal?: AbortSignal, propagation?: DeletePropagation): Promise<boolean>;
}

export interface ReleaseCluster {
  live: LiveReader;
  writer: ObjectWrites;
  /** The server-side apply field manager `writer` applies as (ownership checks compare with it). */
  fieldManager: string;
  /** The object as the API server has it now (undefined when there is none), past any cache. */
  fromServer(ref: ObjectRef, signal?: AbortSignal): Promise<k8s.KubernetesObject | undefined>;
  /** Problems the pods of these workloads report, for a failed or timed-out wait's message. */
  diagnose(refs: ObjectRef[]): Promise<string[]>;
  /** The namespace of namespaced objects rendered without one (the kubeconfig context's). */
  defaultNamespace: string;
  /** Stops the caches. */
  stop(): Promise<void>;
}
