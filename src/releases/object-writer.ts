/**
 * Writes to release objects: server-side apply (`application/apply-patch+yaml`, one field
 * manager, force: longshore owns what it renders, even if someone edited it by hand) and
 * deletion with Background propagation. Transient API failures are retried here (5xx, 429 after
 * its Retry-After, timeouts); permanent ones surface with the server's message.
 */
import * as k8s from '@kubernetes/client-node';
import { isNotFound } from '../kube/errors.ts';
import { type RetryOptions, withKubeRetry } from '../kube/retry.ts';
import type { ObjectRef, ReleaseObject } from '../storage/types.ts';
import type { LiveObjects } from './live-objects.ts';
import { describeRef, refOf } from './objects.ts';

export class ObjectWriter {
  constructor(
    private readonly objects: k8s.KubernetesObjectApi,
    private readonly live: LiveObjects,
    private readonly fieldManager: string,
    private readonly retry: RetryOptions,
  ) {}

  async apply(object: ReleaseObject, signal?: AbortSignal): Promise<k8s.KubernetesObject> {
    const ref = refOf(object);
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

  /** Deletes the object; false when it was already gone. */
  async delete(ref: ObjectRef, signal?: AbortSignal): Promise<boolean> {
    const existed = await withKubeRetry(
      `delete ${describeRef(ref)}`,
      async () => {
        try {
          await this.objects.delete(
            {
              apiVersion: ref.apiVersion,
              kind: ref.kind,
              metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) },
            },
            undefined,
            undefined,
            undefined,
            undefined,
            'Background',
          );
          return true;
        } catch (err) {
          if (isNotFound(err)) return false;
          throw err;
        }
      },
      { ...this.retry, ...(signal ? { signal } : {}) },
    );
    await this.live.deleted(ref);
    return existed;
  }
}
