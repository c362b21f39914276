/**
 * The garbage collector (kube-controller-manager's), asynchronous like the real one:
 * - a dependent whose owners are all gone is deleted (background); owners that are gone are
 *   removed from a dependent that still has a live owner;
 * - an owner is gone when no object of its kind with that name and uid exists where it would
 *   live: a namespaced dependent's namespaced owner must be in the same namespace (a reference
 *   across namespaces counts as absent), cluster-scoped owners are looked up cluster-wide;
 * - an owner deleted with propagationPolicy=Orphan (finalizer `orphan`) has its references
 *   removed from its dependents, then the finalizer;
 * - an owner deleted with Foreground (finalizer `foregroundDeletion`) has its dependents deleted
 *   first and the finalizer removed once no dependent with blockOwnerDeletion remains.
 * Dependents are indexed by owner uid from the store's change stream, so a pass touches only the
 * objects concerned, whatever the store's size.
 */
import { typeKey } from '../api/service.ts';
import { findByKind, RESOURCE_TYPES, type ResourceType } from '../resources.ts';
import type { ObjectStore, StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject, type OwnerReference } from '../types.ts';
import { ReconcileQueue } from './reconcile-queue.ts';
import type { SimClient } from './sim-client.ts';

interface Ref {
  typeKey: string;
  namespace?: string;
  name: string;
}

function refKey(ref: Ref): string {
  return `${ref.typeKey}|${ref.namespace ?? ''}|${ref.name}`;
}

function parseRefKey(key: string): Ref {
  const [tk, ns, name] = key.split('|') as [string, string, string];
  return { typeKey: tk, ...(ns ? { namespace: ns } : {}), name };
}

/** Looked up on each use: CustomResourceDefinitions add types (custom resources have owners too). */
const typeByKey = (key: string) => RESOURCE_TYPES.find((t) => typeKey(t) === key);

export class GarbageCollector {
  /** owner uid → dependents (ref keys). */
  private readonly dependents = new Map<string, Set<string>>();
  /** dependent ref key → owner uids it points at (to keep the index right on change). */
  private readonly ownersOf = new Map<string, string[]>();
  /** uid → ref key of owners being deleted in the foreground (waiting on their dependents). */
  private readonly foreground = new Map<string, string>();
  private readonly dependentQueue: ReconcileQueue;
  private readonly ownerQueue: ReconcileQueue;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: ObjectStore,
    private readonly client: SimClient,
    onError: (what: string, err: unknown) => void,
  ) {
    this.dependentQueue = new ReconcileQueue(
      (k) => this.checkDependent(k),
      (k, e) => onError(`gc dependent ${k}`, e),
    );
    this.ownerQueue = new ReconcileQueue(
      (k) => this.checkOwner(k),
      (k, e) => onError(`gc owner ${k}`, e),
    );
    for (const { typeKey: tk, object } of store.dump()) {
      this.index(tk, object);
      if (object.metadata.deletionTimestamp && object.metadata.finalizers?.length) {
        this.ownerQueue.add(
          refKey({ typeKey: tk, namespace: object.metadata.namespace, name: object.metadata.name! }),
        );
        if (object.metadata.finalizers.includes('foregroundDeletion')) {
          this.foreground.set(
            object.metadata.uid!,
            refKey({ typeKey: tk, namespace: object.metadata.namespace, name: object.metadata.name! }),
          );
        }
      }
    }
    this.unsubscribe = store.subscribe((event) => this.observe(event));
    // Objects loaded from a snapshot may already have absent owners.
    for (const key of this.ownersOf.keys()) this.dependentQueue.add(key);
  }

  stop(): void {
    this.unsubscribe();
  }

  async idle(): Promise<void> {
    // Each queue's work can feed the other: wait until both stay empty.
    for (let i = 0; i < 100; i++) {
      await this.dependentQueue.idle();
      await this.ownerQueue.idle();
      if (this.dependentQueue.size === 0 && this.ownerQueue.size === 0) return;
    }
  }

  private observe(event: StoreEvent): void {
    const { object } = event;
    const key = refKey({
      typeKey: event.typeKey,
      namespace: object.metadata.namespace,
      name: object.metadata.name!,
    });
    if (event.type === 'DELETED') {
      this.unindex(key);
      this.foreground.delete(object.metadata.uid!);
      // Its dependents may now be orphans; owners waiting in foreground may now be free.
      for (const dep of this.dependents.get(object.metadata.uid!) ?? []) this.dependentQueue.add(dep);
      for (const ownerUid of (object.metadata.ownerReferences ?? []).map((r) => r.uid))
        this.queueOwnerByUid(ownerUid);
      return;
    }
    this.index(event.typeKey, object);
    if (object.metadata.ownerReferences?.length) this.dependentQueue.add(key);
    const finalizers = object.metadata.finalizers ?? [];
    if (object.metadata.deletionTimestamp && finalizers.includes('foregroundDeletion'))
      this.foreground.set(object.metadata.uid!, key);
    else this.foreground.delete(object.metadata.uid!);
    if (
      object.metadata.deletionTimestamp &&
      (finalizers.includes('orphan') || finalizers.includes('foregroundDeletion'))
    ) {
      this.ownerQueue.add(key);
    }
  }

  private index(tk: string, object: KubeObject): void {
    const key = refKey({ typeKey: tk, namespace: object.metadata.namespace, name: object.metadata.name! });
    this.unindex(key);
    const owners = (object.metadata.ownerReferences ?? []).map((r) => r.uid);
    if (owners.length === 0) return;
    this.ownersOf.set(key, owners);
    for (const uid of owners) {
      const set = this.dependents.get(uid) ?? new Set<string>();
      this.dependents.set(uid, set);
      set.add(key);
    }
  }

  private unindex(key: string): void {
    for (const uid of this.ownersOf.get(key) ?? []) {
      const set = this.dependents.get(uid);
      set?.delete(key);
      if (set?.size === 0) this.dependents.delete(uid);
    }
    this.ownersOf.delete(key);
  }

  private queueOwnerByUid(uid: string): void {
    const key = this.foreground.get(uid);
    if (key) this.ownerQueue.add(key);
  }

  private lookup(ref: Ref): KubeObject | undefined {
    return this.store.get(ref.typeKey, ref.namespace, ref.name);
  }

  /** The owner a reference points at, if it exists where a reference from `dependent` can see it. */
  private resolveOwner(
    dependent: KubeObject,
    owner: OwnerReference,
  ): { type: ResourceType; object: KubeObject } | undefined {
    const type = findByKind(owner.apiVersion, owner.kind);
    if (!type) return undefined;
    if (type.namespaced && !dependent.metadata.namespace) return undefined;
    const object = this.store.get(
      typeKey(type),
      type.namespaced ? dependent.metadata.namespace : undefined,
      owner.name,
    );
    return object && object.metadata.uid === owner.uid ? { type, object } : undefined;
  }

  private checkDependent(key: string): void {
    const ref = parseRefKey(key);
    const dependent = this.lookup(ref);
    const type = typeByKey(ref.typeKey);
    if (!dependent || !type) return;
    const refs = dependent.metadata.ownerReferences ?? [];
    if (refs.length === 0) return;
    const live: OwnerReference[] = [];
    let waitingInForeground = false;
    for (const owner of refs) {
      const found = this.resolveOwner(dependent, owner);
      if (!found) continue;
      const o = found.object;
      if (o.metadata.deletionTimestamp && o.metadata.finalizers?.includes('foregroundDeletion'))
        waitingInForeground = true;
      else live.push(owner);
    }
    if (live.length === 0) {
      if (!dependent.metadata.deletionTimestamp)
        this.client.delete(
          type,
          dependent.metadata.namespace,
          dependent.metadata.name!,
          waitingInForeground ? 'Foreground' : 'Background',
        );
      return;
    }
    if (live.length < refs.length && !waitingInForeground) {
      // Drop references to owners that are gone, keep the rest (the dependent stays).
      const next = clone(dependent);
      next.metadata.ownerReferences = live;
      this.client.update(type, next);
    }
  }

  private checkOwner(key: string): void {
    const ref = parseRefKey(key);
    const owner = this.lookup(ref);
    const type = typeByKey(ref.typeKey);
    if (!owner || !type || !owner.metadata.deletionTimestamp) return;
    const finalizers = owner.metadata.finalizers ?? [];
    const deps = [...(this.dependents.get(owner.metadata.uid!) ?? [])]
      .map((k) => ({ key: k, ref: parseRefKey(k) }))
      .map(({ key: k, ref: r }) => ({ key: k, type: typeByKey(r.typeKey), object: this.lookup(r) }))
      .filter((d): d is { key: string; type: ResourceType; object: KubeObject } => !!d.type && !!d.object);

    if (finalizers.includes('orphan')) {
      for (const dep of deps) {
        const next = clone(dep.object);
        next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter(
          (r) => r.uid !== owner.metadata.uid,
        );
        this.client.update(dep.type, next);
      }
      this.removeFinalizer(type, owner, 'orphan');
      return;
    }
    if (finalizers.includes('foregroundDeletion')) {
      for (const dep of deps) {
        if (!dep.object.metadata.deletionTimestamp) {
          this.client.delete(
            dep.type,
            dep.object.metadata.namespace,
            dep.object.metadata.name!,
            'Foreground',
          );
        }
      }
      // Dependents with finalizers of their own are still there: their DELETED events bring us back.
      const stillBlocking = deps.some(
        (d) =>
          this.lookup(parseRefKey(d.key))?.metadata.ownerReferences?.find((r) => r.uid === owner.metadata.uid)
            ?.blockOwnerDeletion,
      );
      if (!stillBlocking) this.removeFinalizer(type, owner, 'foregroundDeletion');
    }
  }

  private removeFinalizer(type: ResourceType, owner: KubeObject, finalizer: string): void {
    const current = this.lookup({
      typeKey: typeKey(type),
      namespace: owner.metadata.namespace,
      name: owner.metadata.name!,
    });
    if (!current) return;
    const next = clone(current);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.client.update(type, next);
  }
}
