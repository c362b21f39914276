/**
 * Writes to release objects: server-side apply (`application/apply-patch+yaml`, one field
 * manager, force: longshore owns what it renders, even if someone edited it by hand) and
 * deletion, with Background propagation unless the caller asks for Foreground (a destroy: the
 * workload's ReplicaSets and pods go before it). Transient API failures are retried here (5xx, 429 after
 * its Retry-After, timeouts); permanent ones surface with the server's message.
 */
import * as k8s from '@kubernetes/client-node';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/errors.ts';
import { type RetryOptions, withKubeRetry } from '../kube/retry.ts';
import type { ObjectRef, ReleaseObject } from '../storage/types.ts';
import { ReleaseChangedError } from './errors.ts';
import type { LiveObjects } from './live-objects.ts';
import { describeRef, RELEASE_LABEL, refOf } from './objects.ts';
import {
  findPullSecretLeak,
  hasPodTemplate,
  type PullSecretLeak,
  transferLeakOwnership,
} from './pull-secret-leaks.ts';
import type { DeletePropagation, WriteCondition } from './release-cluster.ts';
import { handoverManager, replicasHandover } from './replicas-handover.ts';

export class ObjectWriter {
  constructor(
    private readonly objects: k8s.KubernetesObjectApi,
    private readonly live: LiveObjects,
    private readonly fieldManager: string,
    private readonly retry: RetryOptions,
  ) {}

  /**
   * Applies the object. When its live copy (from the informer) lists `imagePullSecrets` that the
   * object does not, their ownership is first moved to this manager in one metadata-only write, so
   * that the apply removes them (`pull-secret-leaks.ts`); `onLeak` is told what was released.
   */
  async apply(
    object: ReleaseObject,
    signal?: AbortSignal,
    onLeak?: (leak: PullSecretLeak) => void,
    condition?: WriteCondition,
  ): Promise<k8s.KubernetesObject> {
    if (condition) return this.writeIf(object, condition, signal);
    const ref = refOf(object);
    const leak = await this.releaseLeakedPullSecrets(object, signal);
    if (leak) onLeak?.(leak);
    await this.handOverReplicas(object, signal);
    const applied = await withKubeRetry(
      `apply ${describeRef(ref)}`,
      // client-node fills in defaults on the spec it is given: send a copy.
      () =>
        this.objects.patch(
          structuredClone(object),
          undefined,
          undefined,
          this.fieldManager,
          true,
          k8s.PatchStrategy.ServerSideApply,
        ),
      { ...this.retry, ...(signal ? { signal } : {}) },
    );
    await this.live.wrote(ref, applied);
    return applied;
  }

  /**
   * A write that must not land over anyone else's (WriteCondition): a replace carrying the
   * resourceVersion the caller checked, or a create. A conflict, a deletion meanwhile or an object
   * that exists already is not retried: ReleaseChangedError. (Only for objects without a pod
   * template: leaked pull secrets are not looked for.)
   */
  private async writeIf(
    object: ReleaseObject,
    condition: WriteCondition,
    signal?: AbortSignal,
  ): Promise<k8s.KubernetesObject> {
    const ref = refOf(object);
    const body = structuredClone(object);
    if (condition !== 'absent') body.metadata.resourceVersion = condition.resourceVersion;
    const outcome = await withKubeRetry(
      `${condition === 'absent' ? 'create' : 'replace'} ${describeRef(ref)}`,
      async () => {
        try {
          const written =
            condition === 'absent'
              ? await this.objects.create(body, undefined, undefined, this.fieldManager)
              : await this.objects.replace(body, undefined, undefined, this.fieldManager);
          return { written };
        } catch (err) {
          if (condition === 'absent' && isAlreadyExists(err)) return { changed: 'it exists now' };
          if (condition !== 'absent' && isNotFound(err)) return { changed: 'it was deleted' };
          if (condition !== 'absent' && isConflict(err))
            return { changed: `it was written since resourceVersion ${condition.resourceVersion}` };
          throw err;
        }
      },
      { ...this.retry, ...(signal ? { signal } : {}) },
    );
    if ('changed' in outcome)
      throw new ReleaseChangedError(
        object.metadata.labels?.[RELEASE_LABEL] ?? ref.name,
        `${describeRef(ref)}: ${outcome.changed}`,
      );
    await this.live.wrote(ref, outcome.written);
    return outcome.written;
  }

  /**
   * Moves the ownership of leaked pull secrets to this manager: a JSON merge patch of
   * `metadata.managedFields` only (no spec change: no new generation, no ReplicaSet), with the live
   * resourceVersion as precondition so a concurrent write is not overwritten (409 → retried, the
   * leak looked up again from the informer).
   */
  private async releaseLeakedPullSecrets(
    object: ReleaseObject,
    signal?: AbortSignal,
  ): Promise<PullSecretLeak | undefined> {
    const ref = refOf(object);
    if (!hasPodTemplate(object.kind)) return undefined;
    let found: PullSecretLeak | undefined;
    await withKubeRetry(
      `release leaked imagePullSecrets of ${describeRef(ref)}`,
      async () => {
        const live = await this.live.get(ref, signal);
        const leak = live ? findPullSecretLeak(object, live) : undefined;
        const managedFields =
          live && leak ? transferLeakOwnership(live, leak, this.fieldManager, object.apiVersion) : undefined;
        found = leak;
        if (!live || !managedFields) return;
        const body = {
          apiVersion: object.apiVersion,
          kind: object.kind,
          metadata: {
            name: ref.name,
            ...(ref.namespace ? { namespace: ref.namespace } : {}),
            resourceVersion: live.metadata?.resourceVersion,
            managedFields,
          },
        };
        const patched = await this.objects.patch(
          body as k8s.KubernetesObject,
          undefined,
          undefined,
          this.fieldManager,
          undefined,
          k8s.PatchStrategy.MergePatch,
        );
        await this.live.wrote(ref, patched);
      },
      { ...this.retry, ...(signal ? { signal } : {}) },
    );
    return found;
  }

  /** An autoscaled Deployment's replica count, kept by a second manager as longshore lets go of it. */
  private async handOverReplicas(object: ReleaseObject, signal?: AbortSignal): Promise<void> {
    const ref = refOf(object);
    if (object.kind !== 'Deployment') return;
    const body = replicasHandover(object, await this.live.get(ref, signal), this.fieldManager);
    if (!body) return;
    const applied = await withKubeRetry(
      `hand over the replicas of ${describeRef(ref)}`,
      () =>
        this.objects.patch(
          structuredClone(body),
          undefined,
          undefined,
          handoverManager(this.fieldManager),
          true,
          k8s.PatchStrategy.ServerSideApply,
        ),
      { ...this.retry, ...(signal ? { signal } : {}) },
    );
    await this.live.wrote(ref, applied);
  }

  /** Deletes the object; false when it was already gone. */
  async delete(
    ref: ObjectRef,
    signal?: AbortSignal,
    propagation: DeletePropagation = 'Background',
  ): Promise<boolean> {
    const deleted = await withKubeRetry(
      `delete ${describeRef(ref)}`,
      async (): Promise<{ rv?: number } | undefined> => {
        try {
          // Some kinds answer with the deleted object (its resourceVersion names the deletion),
          // most with a Status (none: the cache takes it from the DELETED event), for cache fences.
          const answer = await this.objects.delete(
            {
              apiVersion: ref.apiVersion,
              kind: ref.kind,
              metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) },
            },
            undefined,
            undefined,
            undefined,
            undefined,
            propagation,
          );
          const rv = Number(
            (answer as { metadata?: { resourceVersion?: string } })?.metadata?.resourceVersion,
          );
          return Number.isFinite(rv) && rv > 0 ? { rv } : {};
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      },
      { ...this.retry, ...(signal ? { signal } : {}) },
    );
    await this.live.deleted(ref, deleted?.rv);
    return deleted !== undefined;
  }
}
