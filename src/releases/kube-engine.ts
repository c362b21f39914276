/**
 * A release engine over a real API server (or kube-sim): the ReleaseCluster of informer caches,
 * server-side apply and discovery (kube-release-cluster.ts) under the engine's decisions
 * (engine.ts). The one place that joins the two, so the engine itself loads no Kubernetes client.
 */
import * as k8s from '@kubernetes/client-node';
import type { Clock } from '../core/clock.ts';
import type { CacheFences } from '../kube/cache-fence.ts';
import type { KubeClients } from '../kube/client.ts';
import type { RetryOptions } from '../kube/retry.ts';
import { ReleaseEngine, type ReleaseEngineOptions } from './engine.ts';
import { kubeReleaseCluster } from './kube-release-cluster.ts';

export interface KubeReleaseEngineOptions extends Omit<ReleaseEngineOptions, 'cluster'> {
  /** Clients (or a KubeConfig to build them from). */
  kube: KubeClients | k8s.KubeConfig;
  /** Server-side apply field manager (default `longshore`). */
  fieldManager?: string;
  /** In-attempt retries of API calls (default: 5 attempts from 100 ms). */
  retry?: RetryOptions;
  /** Informer caches of live objects unused this long are stopped (default 15 minutes). */
  cacheIdleTimeoutMs?: number;
  /** The clock that idle time is measured on (default: the system clock); tests pass a manual one. */
  clock?: Clock;
  /** Told about informer list/watch failures (they restart by themselves), for logs. */
  onInformerError?(what: string, err: unknown): void;
  /** Cache fences the live-object caches take part in (src/kube/cache-fence.ts). */
  fences?: CacheFences;
}

export function createReleaseEngine(options: KubeReleaseEngineOptions): ReleaseEngine {
  const { kube, fieldManager, retry, cacheIdleTimeoutMs, clock, onInformerError, fences, ...engine } =
    options;
  const kc = kube instanceof k8s.KubeConfig ? kube : kube.kc;
  const cluster = kubeReleaseCluster(kc, {
    fieldManager: fieldManager ?? 'longshore',
    retry: retry ?? {},
    ...(cacheIdleTimeoutMs !== undefined ? { cacheIdleTimeoutMs } : {}),
    ...(clock ? { clock } : {}),
    ...(onInformerError ? { onInformerError } : {}),
    ...(fences ? { fences } : {}),
  });
  return new ReleaseEngine({ ...engine, cluster });
}
