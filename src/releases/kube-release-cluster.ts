/**
 * The ReleaseCluster of a real API server (or kube-sim): informer caches of live objects
 * (live-objects.ts), server-side apply (object-writer.ts), discovery (object-api.ts), GETs past
 * the caches and the pods' diagnosis of failed rollouts (pod-diagnosis.ts).
 */
import type * as k8s from '@kubernetes/client-node';
import type { Clock } from '../core/clock.ts';
import type { CacheFences } from '../kube/cache-fence.ts';
import { isNotFound } from '../kube/errors.ts';
import { type RetryOptions, withKubeRetry } from '../kube/retry.ts';
import { LiveObjects } from './live-objects.ts';
import { DiscoveringObjectApi } from './object-api.ts';
import { ObjectWriter } from './object-writer.ts';
import { describeRef } from './objects.ts';
import { diagnoseRollouts } from './pod-diagnosis.ts';
import type { ReleaseCluster } from './release-cluster.ts';

export interface KubeReleaseClusterOptions {
  fieldManager: string;
  retry: RetryOptions;
  cacheIdleTimeoutMs?: number;
  /** The clock informer-cache idle time is measured on (default: the system clock). */
  clock?: Clock;
  onInformerError?(what: string, err: unknown): void;
  /** Cache fences the live-object caches take part in (src/kube/cache-fence.ts). */
  fences?: CacheFences;
}

export function kubeReleaseCluster(kc: k8s.KubeConfig, options: KubeReleaseClusterOptions): ReleaseCluster {
  const objects = DiscoveringObjectApi.forConfig(kc);
  const { retry } = options;
  const live = new LiveObjects({
    kc,
    objects,
    retry,
    ...(options.cacheIdleTimeoutMs !== undefined ? { idleTimeoutMs: options.cacheIdleTimeoutMs } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.onInformerError ? { onInformerError: options.onInformerError } : {}),
    ...(options.fences ? { fences: options.fences } : {}),
  });
  const context = kc.getContextObject(kc.getCurrentContext());
  return {
    live,
    writer: new ObjectWriter(objects, live, options.fieldManager, retry),
    fieldManager: options.fieldManager,
    defaultNamespace: context?.namespace ?? 'default',
    diagnose: (refs) => diagnoseRollouts(kc, live, refs),
    stop: () => live.stop(),
    fromServer: (ref, signal) =>
      withKubeRetry(
        `read ${describeRef(ref)}`,
        async () => {
          try {
            return await objects.read({
              apiVersion: ref.apiVersion,
              kind: ref.kind,
              metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) },
            });
          } catch (err) {
            if (isNotFound(err)) return undefined;
            throw err;
          }
        },
        { ...retry, ...(signal ? { signal } : {}) },
      ),
  };
}
