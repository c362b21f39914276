/**
 * A label-selected, namespace-scoped informer cache of one kind (client-node's ListWatch), with:
 * - read-your-writes: objects this process just wrote are overlaid until the watch catches up
 *   (compared by resourceVersion), so a read right after a write sees it;
 * - restarts after errors (client-node's informer stops on any error but 410), with backoff;
 * - `synced()`, resolving once the first list has been received;
 * - what cache fences need (cache-fence.ts): the latest write this process made into it and the
 *   highest resourceVersion it has received.
 * Reads never go to the API server: that is the point (a no-op redeploy must read no Secret).
 */
import * as k8s from '@kubernetes/client-node';
import type { CacheFences, FencedCache } from './cache-fence.ts';
import { managedFieldsPool } from './managed-fields-pool.ts';

export interface InformerCacheOptions<T extends k8s.KubernetesObject> {
  kc: k8s.KubeConfig;
  /** Collection path, e.g. `/api/v1/namespaces/longshore-system/secrets`. */
  path: string;
  labelSelector: string;
  /** Lists the collection (with the same selector); the informer relists with it after a 410. */
  list(): Promise<k8s.KubernetesListObject<T>>;
  /** Told about each (re)start failure, for logs. */
  onError?(err: unknown): void;
  /** Delay before restarting after an error (default 200 ms, doubling to 5 s). */
  restartDelayMs?: number;
  /** The cluster connection's fences this cache takes part in (registered until stopped). */
  fences?: CacheFences;
  /**
   * A label whose value `listByLabel` finds objects by without a scan (release storage: the
   * release of each revision Secret, asked for on every read of a release's history).
   */
  indexLabel?: string;
  /**
   * Drop `metadata.managedFields` from every object held (listed, watched or written here). For
   * kinds whose readers never look at field ownership: a Secret's managedFields is a tree of a few
   * dozen small objects, which at 1,000 apps × 10 revisions of release storage was ~50 MB of a
   * worker's heap. Off by default: live objects need it (replicas hand-over, ownership checks).
   */
  dropManagedFields?: boolean;
  /**
   * Share identical `managedFields` trees between the objects held (listed or watched), one frozen
   * copy each (managed-fields-pool.ts). For kinds whose readers look at field ownership but never
   * edit it in place. Objects written by this process are kept as the API answered them.
   */
  shareManagedFields?: boolean;
}

function keyOf(o: k8s.KubernetesObject): string {
  return `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

/** Removes the object's managedFields in place (an object the cache holds, or a copy of one). */
function withoutManagedFields<T extends k8s.KubernetesObject>(o: T): T {
  if (o.metadata?.managedFields) delete o.metadata.managedFields;
  return o;
}

/** A shallow copy with metadata of its own, without managedFields. */
function copyWithoutManagedFields<T extends k8s.KubernetesObject>(o: T): T {
  const { managedFields: _dropped, ...metadata } = o.metadata ?? {};
  return { ...o, metadata };
}

function rvOf(o: k8s.KubernetesObject | undefined): number {
  return Number(o?.metadata?.resourceVersion ?? 0);
}

export class InformerCache<T extends k8s.KubernetesObject> implements FencedCache {
  readonly fenceId: string;
  private readonly informer: k8s.Informer<T> & k8s.ObjectCache<T>;
  /** Writes of this process not yet seen on the watch (or deletions: undefined). */
  private readonly overlay = new Map<string, { object: T | undefined; rv: number }>();
  private stopped = false;
  private delay: number;
  private syncedOnce = false;
  private readonly waiters: (() => void)[] = [];
  private readonly changeListeners = new Set<() => void>();
  private observed = 0;
  /** Deletions this process made whose DELETED event has not arrived yet (keys). */
  private readonly pendingDeletes = new Set<string>();
  private written?: { rv: number; at: number };
  private unregister?: () => void;
  private readonly fences?: CacheFences;
  private readonly indexLabel?: string;
  private readonly dropManagedFields: boolean;
  /** Keys by their `indexLabel` value: every key the informer or the overlay ever held with it. */
  private readonly byLabel = new Map<string, Set<string>>();

  constructor(options: InformerCacheOptions<T>) {
    this.delay = options.restartDelayMs ?? 200;
    this.fenceId = `${options.path}?labelSelector=${options.labelSelector}`;
    if (options.fences) this.fences = options.fences;
    if (options.indexLabel) this.indexLabel = options.indexLabel;
    this.dropManagedFields = options.dropManagedFields ?? false;
    // What the cache does to each object's managedFields as it arrives: drop or share them.
    const compact = this.dropManagedFields
      ? withoutManagedFields
      : options.shareManagedFields
        ? (o: T) => managedFieldsPool.share(o)
        : undefined;
    // The list's own resourceVersion counts as received: the items are in the cache before any
    // code waiting on a fence runs again (client-node adds them synchronously after the list).
    const list = async () => {
      const listed = await options.list();
      if (compact) for (const item of listed.items) compact(item);
      this.observe(Number(listed.metadata?.resourceVersion ?? 0));
      return listed;
    };
    this.informer = k8s.makeInformer(options.kc, options.path, list, options.labelSelector);
    this.informer.on('error', (err) => {
      options.onError?.(err);
      if (this.stopped) return;
      setTimeout(() => void this.start().catch(() => undefined), this.delay);
      this.delay = Math.min(this.delay * 2, 5_000);
    });
    this.informer.on('connect', () => {
      this.delay = options.restartDelayMs ?? 200;
    });
    const seen = (o: T) => {
      this.observe(rvOf(o));
      const pending = this.overlay.get(keyOf(o));
      if (pending && rvOf(o) >= pending.rv) this.overlay.delete(keyOf(o));
    };
    // An ADDED object replaces a deletion this process recorded (it was created again).
    // client-node stores the watched object itself and then calls these handlers with it, so
    // dropping (or sharing) managedFields here is doing it in the cache.
    this.informer.on('add', (o) => {
      compact?.(o);
      this.observe(rvOf(o));
      this.indexObject(o);
      this.pendingDeletes.delete(keyOf(o));
      const pending = this.overlay.get(keyOf(o));
      if (pending && (pending.object === undefined || rvOf(o) >= pending.rv)) this.overlay.delete(keyOf(o));
      this.notify();
    });
    this.informer.on('update', (o) => {
      compact?.(o);
      this.indexObject(o);
      seen(o);
      this.notify();
    });
    this.informer.on('delete', (o) => {
      // A DELETED event carries the object at the deletion's resourceVersion (as upstream): for
      // a deletion of this process, that is the write a fence must name (the API's answer to a
      // DELETE is usually a Status, without it).
      this.observe(rvOf(o));
      if (this.pendingDeletes.delete(keyOf(o))) this.noteWrite(rvOf(o));
      this.overlay.delete(keyOf(o));
      this.unindexObject(o);
      this.notify();
    });
  }

  /**
   * Calls `listener` after every event the watch delivers (the cache already holds it), so a
   * waiter can re-read at once instead of on its next poll. Returns the unsubscribe function.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private observe(rv: number): void {
    if (rv > this.observed) this.observed = rv;
  }

  observedRv(): number {
    return this.observed;
  }

  unseenDeletions(): number {
    return this.pendingDeletes.size;
  }

  lastWrite(): { rv: number; at: number } | undefined {
    return this.written;
  }

  private noteWrite(rv: number): void {
    if (!(rv > 0)) return;
    if (!this.written || rv >= this.written.rv) this.written = { rv, at: Date.now() };
  }

  private notify(): void {
    for (const listener of this.changeListeners) listener();
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.unregister ??= this.fences?.register(this);
    await this.informer.start();
    if (!this.syncedOnce) {
      this.syncedOnce = true;
      for (const resolve of this.waiters.splice(0)) resolve();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unregister?.();
    this.unregister = undefined;
    this.pendingDeletes.clear();
    await this.informer.stop();
  }

  /** Resolves once the first list has arrived. */
  synced(): Promise<void> {
    return this.syncedOnce ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  get(namespace: string | undefined, name: string): T | undefined {
    const key = `${namespace ?? ''}/${name}`;
    const pending = this.overlay.get(key);
    const cached = this.informer.get(name, namespace);
    if (pending && pending.rv > rvOf(cached)) return pending.object;
    return cached;
  }

  list(namespace?: string): T[] {
    const byKey = new Map<string, T>();
    for (const o of this.informer.list(namespace)) byKey.set(keyOf(o), o);
    for (const [key, pending] of this.overlay) {
      if (namespace !== undefined && !key.startsWith(`${namespace}/`)) continue;
      if (pending.rv <= rvOf(byKey.get(key))) continue;
      if (pending.object) byKey.set(key, pending.object);
      else byKey.delete(key);
    }
    return [...byKey.values()];
  }

  /**
   * Objects whose `indexLabel` (an option) has `value`, in one namespace or all, as `list` would
   * filter them, found through the index instead of a scan of the cache.
   */
  listByLabel(value: string, namespace?: string): T[] {
    if (!this.indexLabel) throw new Error('listByLabel needs the indexLabel option');
    const out: T[] = [];
    for (const key of this.byLabel.get(value) ?? []) {
      const slash = key.indexOf('/');
      const ns = key.slice(0, slash);
      if (namespace !== undefined && ns !== namespace) continue;
      const object = this.get(ns === '' ? undefined : ns, key.slice(slash + 1));
      if (object && object.metadata?.labels?.[this.indexLabel] === value) out.push(object);
    }
    return out;
  }

  private indexObject(o: T): void {
    const value = this.indexLabel ? o.metadata?.labels?.[this.indexLabel] : undefined;
    if (value === undefined) return;
    let keys = this.byLabel.get(value);
    if (!keys) {
      keys = new Set();
      this.byLabel.set(value, keys);
    }
    keys.add(keyOf(o));
  }

  /** Drops a deleted object's key, unless a write of this process still holds one under it. */
  private unindexObject(o: T): void {
    const value = this.indexLabel ? o.metadata?.labels?.[this.indexLabel] : undefined;
    if (value === undefined || this.overlay.get(keyOf(o))?.object) return;
    const keys = this.byLabel.get(value);
    keys?.delete(keyOf(o));
    if (keys?.size === 0) this.byLabel.delete(value);
  }

  /** Records an object this process wrote (the API's answer), so reads see it at once. */
  wrote(written: T): void {
    // A copy: the caller keeps the API's answer as it came.
    const object = this.dropManagedFields ? copyWithoutManagedFields(written) : written;
    this.indexObject(object);
    this.overlay.set(keyOf(object), { object, rv: rvOf(object) });
    this.noteWrite(rvOf(object));
  }

  /**
   * Records a deletion this process made. `rv` is the deletion's resourceVersion when the API's
   * answer carried it (kinds whose DELETE returns the deleted object); otherwise the watch's
   * DELETED event gives it, and until then the deletion counts as unseen (`unseenDeletions`, which
   * a job's end waits on so that its fence names it). `pending: false`: the object may not exist
   * (no event will come).
   */
  deleted(namespace: string | undefined, name: string, rv?: number, pending = true): void {
    const key = `${namespace ?? ''}/${name}`;
    this.overlay.set(key, { object: undefined, rv: Number.MAX_SAFE_INTEGER });
    if (rv !== undefined) this.noteWrite(rv);
    else if (pending && this.informer.get(name, namespace)) this.pendingDeletes.add(key);
    // The watch's DELETED event clears it; a later create (new RV) replaces it through wrote().
  }
}
