/**
 * DELETE semantics: preconditions, propagation policies (Orphan, Background, Foreground) through
 * the `orphan` and `foregroundDeletion` finalizers, objects with finalizers waiting with a
 * deletionTimestamp, namespaces going Terminating. The garbage collector and the namespace
 * controller finish what deletion starts.
 */
import { CLEANUP_FINALIZER, isCrdType } from '../crd/definition.ts';
import { statusErrors } from '../errors.ts';
import type { ResourceType } from '../resources.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { timestamp } from './metadata.ts';
import { deletionDeadline, isPod, podGracePeriod } from './pod-grace.ts';
import type { ApiRequest } from './request.ts';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export interface DeleteResult {
  code: 200 | 202;
  /** The object still being deleted, or the object as it was when it went. */
  object: KubeObject;
  /** True when the object is gone from the store. */
  gone: boolean;
}

export interface DeletionDeps {
  store: ObjectStore;
  typeKey(type: ResourceType): string;
  onDeleted(type: ResourceType, object: KubeObject): void;
  onUpdated(type: ResourceType, object: KubeObject): void;
}

export const JOB_ORPHAN_WARNING =
  'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning';

function defaultPolicy(type: ResourceType): PropagationPolicy {
  // batch/v1 Jobs orphan their pods unless told otherwise (registry/batch/job/strategy.go).
  return type.group === 'batch' && type.kind === 'Job' ? 'Orphan' : 'Background';
}

export function deleteObject(
  deps: DeletionDeps,
  req: ApiRequest,
  existing: KubeObject,
  options: DeleteOptions,
): DeleteResult {
  const { type } = req;
  const name = existing.metadata.name!;
  const pre = options.preconditions;
  if (pre?.uid && pre.uid !== existing.metadata.uid) {
    throw statusErrors.conflict(
      type,
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${existing.metadata.uid}`,
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== existing.metadata.resourceVersion) {
    throw statusErrors.conflict(
      type,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${existing.metadata.resourceVersion}`,
    );
  }
  let policy = options.propagationPolicy;
  if (!policy && options.orphanDependents !== undefined)
    policy = options.orphanDependents ? 'Orphan' : 'Background';
  if (!policy) {
    policy = defaultPolicy(type);
    if (type.kind === 'Job') req.warnings.push(JOB_ORPHAN_WARNING);
  }
  const code: 200 | 202 = options.orphanDependents === false ? 202 : 200;
  if (options.dryRun) return { code, object: existing, gone: false };

  const grace = isPod(type) ? podGracePeriod(existing, options.gracePeriodSeconds) : 0;
  // Already being deleted: nothing more to start — except a Pod's grace period, which a later
  // DELETE may shorten (BeforeDelete), down to 0: gone now unless finalizers hold it.
  if (existing.metadata.deletionTimestamp) {
    const current = existing.metadata.deletionGracePeriodSeconds ?? 0;
    if (!isPod(type) || grace >= current) return { code, object: existing, gone: false };
    if (grace === 0 && !existing.metadata.finalizers?.length) {
      const deleted = deps.store.delete(deps.typeKey(type), existing.metadata.namespace, name)!;
      deps.onDeleted(type, deleted);
      return { code, object: deleted, gone: true };
    }
    const next: KubeObject = clone(existing);
    next.metadata.deletionTimestamp = deletionDeadline(grace);
    next.metadata.deletionGracePeriodSeconds = grace;
    const { object } = deps.store.update(deps.typeKey(type), next);
    deps.onUpdated(type, object);
    return { code, object, gone: false };
  }

  const finalizers = [...(existing.metadata.finalizers ?? [])];
  if (policy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
  if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion'))
    finalizers.push('foregroundDeletion');
  // A CRD's first delete adds the finalizer its custom resources are cleaned up under
  // (apiextensions-apiserver pkg/registry/customresourcedefinition/etcd.go REST.Delete).
  if (isCrdType(type) && !finalizers.includes(CLEANUP_FINALIZER)) finalizers.push(CLEANUP_FINALIZER);

  const isNamespace = type.kind === 'Namespace' && !type.group;
  if (finalizers.length > 0 || isNamespace || grace > 0) {
    const next: KubeObject = clone(existing);
    next.metadata.deletionTimestamp = grace > 0 ? deletionDeadline(grace) : timestamp();
    next.metadata.deletionGracePeriodSeconds = grace;
    if (finalizers.length > 0) next.metadata.finalizers = finalizers;
    if (isNamespace) next.status = { ...(next.status as object), phase: 'Terminating' };
    const { object } = deps.store.update(deps.typeKey(type), next);
    deps.onUpdated(type, object);
    return { code, object, gone: false };
  }

  const deleted = deps.store.delete(deps.typeKey(type), existing.metadata.namespace, name)!;
  deps.onDeleted(type, deleted);
  return { code, object: deleted, gone: true };
}

/** The Status upstream answers a completed DELETE with. */
export function deletedStatus(type: ResourceType, object: KubeObject) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: {
      name: object.metadata.name,
      ...(type.group ? { group: type.group } : {}),
      kind: type.plural,
      uid: object.metadata.uid,
    },
  };
}
