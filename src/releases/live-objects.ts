/**
 * Live objects of the managed kinds, read through label-selected informer caches (one per kind
 * and namespace, started when first needed and kept for the engine's life). Drift detection and
 * rollout waits read these caches, never the API: a no-op redeploy costs no GET, and waiting
 * follows the watch instead of polling the server. The caches see this process's own writes at
 * once (InformerCache's read-your-writes overlay).
 */
import type * as k8s from '@kubernetes/client-node';
import { type Clock, systemClock } from '../core/clock.ts';
import { PermanentError, TransientError } from '../core/errors.ts';
import type { CacheFences } from '../kube/cache-fence.ts';
import { InformerCache } from '../kube/informer-cache.ts';
import { type RetryOptions, withKubeRetry } from '../kube/retry.ts';
import type { ObjectRef } from '../storage/types.ts';
import type { DiscoveringObjectApi } from './object-api.ts';
import { MANAGED_SELECTOR } from './objects.ts';

export interface ResourceInfo {
  plural: string;
  namespaced: boolean;
}

interface Entry {
  cache: InformerCache<k8s.KubernetesObject>;
  /** Set by the list function on its first success (InformerCache.start() also resolves after a failed list). */
  state: { listed: boolean };
}

export interface LiveObjectsOptions {
  kc: k8s.KubeConfig;
  /**
   * A cache nobody read for this long is stopped (default 15 minutes), so a worker that touched
   * many apps does not keep a watch open per kind and namespace forever; a reconcile every few
   * minutes keeps an app's caches warm.
   */
  idleTimeoutMs?: number;
  /** What idle time is measured on (default: the system clock). */
  clock?: Clock;
  objects: DiscoveringObjectApi;
  retry: RetryOptions;
  /** How long to wait for a cache's first list before giving up with a TransientError. */
  syncTimeoutMs?: number;
  onInformerError?(what: string, err: unknown): void;
  /** The cluster connection's cache fences, which every cache here takes part in (src/kube/cache-fence.ts). */
  fences?: CacheFences;
}

export class LiveObjects {
  private readonly entries = new Map<string, { entry: Promise<Entry>; lastUsed: number }>();
  private readonly clock: Clock;
  private lastSweep: number;
  private readonly resources = new Map<string, Promise<ResourceInfo>>();

  constructor(private readonly options: LiveObjectsOptions) {
    this.clock = options.clock ?? systemClock;
    this.lastSweep = this.clock.now();
  }

  /** Plural and scope of a kind, from discovery (cached by client-node and here). */
  resource(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const key = `${apiVersion}|${kind}`;
    let found = this.resources.get(key);
    if (!found) {
      found = withKubeRetry(
        `discover ${apiVersion} ${kind}`,
        () => this.options.objects.discover(apiVersion, kind),
        this.options.retry,
      ).then((r) => {
        if (!r) throw new PermanentError(`the API server does not serve ${apiVersion} ${kind}`);
        return r;
      });
      found.catch(() => this.resources.delete(key));
      this.resources.set(key, found);
    }
    return found;
  }

  /** The live object, from its kind's cache (started and listed first if needed). */
  async get(ref: ObjectRef, signal?: AbortSignal): Promise<k8s.KubernetesObject | undefined> {
    const cache = await this.cache(ref, signal);
    return cache.get(ref.namespace, ref.name);
  }

  /** The cache of a kind in a namespace, started and listed. */
  async cache(ref: ObjectRef, signal?: AbortSignal): Promise<InformerCache<k8s.KubernetesObject>> {
    const key = cacheKey(ref);
    const now = this.clock.now();
    this.evictIdle(now);
    let slot = this.entries.get(key);
    if (!slot) {
      const entry = this.start(ref);
      slot = { entry, lastUsed: now };
      entry.catch(() => this.entries.delete(key));
      this.entries.set(key, slot);
    }
    slot.lastUsed = now;
    const ready = await slot.entry;
    await this.listed(ready, ref, signal);
    return ready.cache;
  }

  /**
   * Every managed object of a namespaced kind, in all namespaces, from one cluster-wide cache
   * (started and listed on first use, then kept warm by its watch like the others).
   */
  async listEverywhere(
    apiVersion: string,
    kind: string,
    signal?: AbortSignal,
  ): Promise<k8s.KubernetesObject[]> {
    const cache = await this.cache({ apiVersion, kind, name: '', namespace: ALL_NAMESPACES }, signal);
    return cache.list();
  }

  /** Calls `listener` on every watch event of the caches holding `refs`; returns the unsubscribe function. */
  async onChange(
    refs: readonly ObjectRef[],
    listener: () => void,
    signal?: AbortSignal,
  ): Promise<() => void> {
    const caches = new Set(await Promise.all(refs.map((ref) => this.cache(ref, signal))));
    const unsubscribes = [...caches].map((cache) => cache.onChange(listener));
    return () => {
      for (const unsubscribe of unsubscribes) unsubscribe();
    };
  }

  /** Records a write in the kind's cache when one runs (a cache started later lists it anyway). */
  async wrote(ref: ObjectRef, object: k8s.KubernetesObject): Promise<void> {
    const slot = this.entries.get(cacheKey(ref));
    if (slot) (await slot.entry.catch(() => undefined))?.cache.wrote(object);
  }

  /** Records a deletion, with its resourceVersion when the API's answer carried it (for fences). */
  async deleted(ref: ObjectRef, rv?: number): Promise<void> {
    const slot = this.entries.get(cacheKey(ref));
    if (slot) (await slot.entry.catch(() => undefined))?.cache.deleted(ref.namespace, ref.name, rv);
  }

  /** Number of running caches (kinds × namespaces). */
  get size(): number {
    return this.entries.size;
  }

  async stop(): Promise<void> {
    const slots = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(slots.map((s) => stopEntry(s.entry)));
  }

  private evictIdle(now: number): void {
    const idle = this.options.idleTimeoutMs ?? 15 * 60_000;
    if (now - this.lastSweep < Math.min(idle, 60_000)) return;
    this.lastSweep = now;
    for (const [key, slot] of this.entries) {
      if (now - slot.lastUsed < idle) continue;
      this.entries.delete(key);
      void stopEntry(slot.entry);
    }
  }

  private async start(ref: ObjectRef): Promise<Entry> {
    const { plural, namespaced: scoped } = await this.resource(ref.apiVersion, ref.kind);
    const everywhere = ref.namespace === ALL_NAMESPACES;
    const namespaced = scoped && !everywhere;
    const base = ref.apiVersion.includes('/') ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
    const path = namespaced
      ? `${base}/namespaces/${ref.namespace ?? 'default'}/${plural}`
      : `${base}/${plural}`;
    const what = `list ${ref.apiVersion} ${ref.kind}${namespaced ? ` in ${ref.namespace ?? 'default'}` : everywhere ? ' in all namespaces' : ''}`;
    const state = { listed: false };
    const cache = new InformerCache<k8s.KubernetesObject>({
      kc: this.options.kc,
      path,
      labelSelector: MANAGED_SELECTOR,
      // Retried here too: client-node's informer gives up on the first failed list.
      list: async () => {
        const list = await withKubeRetry(
          what,
          () =>
            this.options.objects.list(
              ref.apiVersion,
              ref.kind,
              namespaced ? (ref.namespace ?? 'default') : undefined,
              undefined,
              undefined,
              undefined,
              undefined,
              MANAGED_SELECTOR,
            ),
          { ...this.options.retry, signal: undefined },
        );
        state.listed = true;
        return list;
      },
      onError: (err) => this.options.onInformerError?.(what, err),
      ...(this.options.fences ? { fences: this.options.fences } : {}),
      // Field ownership is read (replicas hand-over, ownership checks), never edited in place.
      shareManagedFields: true,
    });
    const entry: Entry = { cache, state };
    await cache.start().catch((err: unknown) => this.options.onInformerError?.(what, err));
    return entry;
  }

  /** Waits until the cache's first list succeeded (the informer restarts itself after failures). */
  private async listed(entry: Entry, ref: ObjectRef, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + (this.options.syncTimeoutMs ?? 60_000);
    while (!entry.state.listed) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      if (Date.now() > deadline) {
        throw new TransientError(`the ${ref.apiVersion} ${ref.kind} informer could not list its objects`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function stopEntry(entry: Promise<Entry>): Promise<void> {
  const started = await entry.catch(() => undefined);
  await started?.cache.stop().catch(() => undefined);
}

/** The namespace of a cluster-wide cache's key: no namespace can be called `*`. */
const ALL_NAMESPACES = '*';

function cacheKey(ref: ObjectRef): string {
  return `${ref.apiVersion}|${ref.kind}|${ref.namespace ?? ''}`;
}
