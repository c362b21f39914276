/**
 * The simulator's "etcd": objects by resource type and key, one global resourceVersion counter,
 * and a bounded history of changes that watches resume from. Objects handed out are the stored
 * ones: callers copy before they change anything (the API layer always does).
 *
 * A type served as a view of another (resources.ts ResourceView: events.k8s.io/v1 Events are the
 * core/v1 ones) has no bucket of its own: its key reads and writes the stored type's bucket,
 * converted on the way in and out, so both see the same objects under one resourceVersion
 * sequence. Changes are recorded once, under the stored type's key; `eventAs` shows one as a
 * view's watch sees it.
 */
import { RESOURCE_TYPES, type ResourceView } from '../resources.ts';
import type { KubeObject } from '../types.ts';
import { sameStoredContent } from './equality.ts';
import { TypeBucket } from './type-bucket.ts';

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: StoreEventType;
  rv: number;
  /** `group/plural` of the object's type. */
  typeKey: string;
  object: KubeObject;
  /** The object before a MODIFIED or DELETED, for watches with selectors. */
  previous?: KubeObject;
}

export type StoreListener = (event: StoreEvent) => void;

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** The served views by their type key (`group/plural`), with their stored type's key. */
function viewsByKey(): Map<string, ResourceView & { storageKey: string }> {
  const views = new Map<string, ResourceView & { storageKey: string }>();
  for (const t of RESOURCE_TYPES) {
    if (t.view)
      views.set(`${t.group}/${t.plural}`, {
        ...t.view,
        storageKey: `${t.view.of.group}/${t.view.of.plural}`,
      });
  }
  return views;
}

export class ObjectStore {
  private rv = 0;
  private readonly views = viewsByKey();
  private readonly types = new Map<string, TypeBucket>();
  private history: StoreEvent[] = [];
  /** Events at or below this revision are gone: a watch from before it gets 410 Expired. */
  private compactedRv = 0;
  private readonly listeners = new Set<StoreListener>();

  constructor(private readonly historyCapacity = 10_000) {}

  get currentRv(): number {
    return this.rv;
  }

  get oldestResumableRv(): number {
    return this.compactedRv;
  }

  private bucket(typeKey: string): TypeBucket {
    let bucket = this.types.get(typeKey);
    if (!bucket) {
      bucket = new TypeBucket();
      this.types.set(typeKey, bucket);
    }
    return bucket;
  }

  get(typeKey: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const view = this.views.get(typeKey);
    if (view) {
      const stored = this.get(view.storageKey, namespace, name);
      return stored && view.toView(stored);
    }
    return this.types.get(typeKey)?.get(objectKey(namespace, name));
  }

  /** Objects of a type (in one namespace, or all), in key order as etcd returns them. */
  list(typeKey: string, namespace?: string): KubeObject[] {
    const view = this.views.get(typeKey);
    if (view) return this.list(view.storageKey, namespace).map((o) => view.toView(o));
    return this.types.get(typeKey)?.list(namespace) ?? [];
  }

  /**
   * The objects of a stored type a controller with `ownerUid` may claim in `namespace` (those it
   * controls and the namespace's orphans), in key order: what the workload controllers pass to
   * claimObjects instead of the whole namespace (store/type-bucket.ts says why).
   */
  claimable(typeKey: string, namespace: string, ownerUid: string): KubeObject[] {
    return this.types.get(typeKey)?.claimable(namespace, ownerUid) ?? [];
  }

  /** Every object of a stored type, in no particular order (for counting: no list is built). */
  *unordered(typeKey: string): IterableIterator<KubeObject> {
    const bucket = this.types.get(typeKey);
    if (bucket) yield* bucket.values();
  }

  /**
   * The objects of a type in `namespace` whose labels include all of `selector` (an equality
   * selector), in key order; every object of the namespace when `selector` is empty.
   */
  withLabels(typeKey: string, namespace: string, selector: Record<string, string>): KubeObject[] {
    const view = this.views.get(typeKey);
    if (view) return this.withLabels(view.storageKey, namespace, selector).map((o) => view.toView(o));
    return this.types.get(typeKey)?.withLabels(namespace, selector) ?? [];
  }

  /** The objects of a stored type whose controller reference has `ownerUid`, in key order. */
  controlledBy(typeKey: string, ownerUid: string): KubeObject[] {
    return this.types.get(typeKey)?.controlledBy(ownerUid) ?? [];
  }

  /** Every type key with objects (for garbage collection and namespace cleanup). */
  typeKeys(): string[] {
    return [...this.types.keys()];
  }

  count(): number {
    let n = 0;
    for (const bucket of this.types.values()) n += bucket.size;
    return n;
  }

  /** Stores a new object; it must not exist. Returns it with its resourceVersion set. */
  create(typeKey: string, object: KubeObject): KubeObject {
    const view = this.views.get(typeKey);
    if (view) return view.toView(this.create(view.storageKey, view.fromView(object)));
    const stored = this.stamp(object);
    this.bucket(typeKey).set(objectKey(object.metadata.namespace, object.metadata.name!), stored);
    this.emit({ type: 'ADDED', rv: this.rv, typeKey, object: stored });
    return stored;
  }

  /**
   * Replaces a stored object. When nothing but the resourceVersion (or managedFields times) would
   * change, nothing is written and the stored object is returned as it was.
   */
  update(typeKey: string, object: KubeObject): { object: KubeObject; changed: boolean } {
    const view = this.views.get(typeKey);
    if (view) {
      const result = this.update(view.storageKey, view.fromView(object));
      return { object: view.toView(result.object), changed: result.changed };
    }
    const key = objectKey(object.metadata.namespace, object.metadata.name!);
    const previous = this.bucket(typeKey).get(key);
    if (previous && sameStoredContent(previous, object)) return { object: previous, changed: false };
    const stored = this.stamp(object);
    this.bucket(typeKey).set(key, stored);
    this.emit({ type: 'MODIFIED', rv: this.rv, typeKey, object: stored, ...(previous ? { previous } : {}) });
    return { object: stored, changed: true };
  }

  /** Removes an object; the DELETED event carries it at the deletion's revision, as upstream. */
  delete(typeKey: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const view = this.views.get(typeKey);
    if (view) {
      const deleted = this.delete(view.storageKey, namespace, name);
      return deleted && view.toView(deleted);
    }
    const key = objectKey(namespace, name);
    const bucket = this.types.get(typeKey);
    const previous = bucket?.get(key);
    if (!bucket || !previous) return undefined;
    bucket.delete(key);
    const deleted = this.stamp(previous);
    this.emit({ type: 'DELETED', rv: this.rv, typeKey, object: deleted, previous });
    return deleted;
  }

  /**
   * `event` as a watch of `typeKey` sees it: itself for its own type, converted for a view of its
   * type, undefined for any other type.
   */
  eventAs(typeKey: string, event: StoreEvent): StoreEvent | undefined {
    if (event.typeKey === typeKey) return event;
    const view = this.views.get(typeKey);
    if (!view || view.storageKey !== event.typeKey) return undefined;
    return {
      ...event,
      typeKey,
      object: view.toView(event.object),
      ...(event.previous ? { previous: view.toView(event.previous) } : {}),
    };
  }

  /** Events after `rv`, or undefined when history no longer reaches back that far. */
  eventsAfter(rv: number): StoreEvent[] | undefined {
    if (rv < this.compactedRv) return undefined;
    // History is in revision order: find the first event after rv by binary search.
    let lo = 0;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.history[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.history.slice(lo);
  }

  /** Forgets all history (fault injection: "forced compaction"): older watches get 410. */
  compact(): void {
    this.history = [];
    this.compactedRv = this.rv;
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Restores objects from a snapshot at a revision (no events). */
  load(objects: { typeKey: string; object: KubeObject }[], rv: number): void {
    this.types.clear();
    this.history = [];
    for (const { typeKey, object } of objects) {
      this.bucket(typeKey).set(objectKey(object.metadata.namespace, object.metadata.name!), object);
    }
    this.rv = rv;
    this.compactedRv = rv;
  }

  /** Every stored object with its type (snapshots). */
  dump(): { typeKey: string; object: KubeObject }[] {
    const out: { typeKey: string; object: KubeObject }[] = [];
    for (const [typeKey, bucket] of this.types)
      for (const object of bucket.values()) out.push({ typeKey, object });
    return out;
  }

  private stamp(object: KubeObject): KubeObject {
    this.rv += 1;
    return { ...object, metadata: { ...object.metadata, resourceVersion: String(this.rv) } };
  }

  private emit(event: StoreEvent): void {
    this.history.push(event);
    // Trimmed in steps of a quarter of the capacity, not by one event per write: a splice at the
    // front moves the whole array, and doing it on every write cost the simulator more than the
    // write itself once the history was full. Between capacity and 1.25 × capacity events are kept.
    if (this.history.length > this.historyCapacity + Math.ceil(this.historyCapacity / 4)) {
      const dropped = this.history.splice(0, this.history.length - this.historyCapacity);
      this.compactedRv = dropped.at(-1)!.rv;
    }
    for (const listener of this.listeners) listener(event);
  }
}
