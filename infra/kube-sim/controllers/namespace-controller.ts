/**
 * The namespace lifecycle controller: a namespace being deleted (phase Terminating, finalizer
 * `kubernetes` in spec.finalizers) has everything in it deleted; once nothing is left, the
 * finalizer is removed through the `finalize` subresource and the namespace goes. New content is
 * refused meanwhile (admission in the API service).
 */
import { typeKey } from '../api/service.ts';
import { findByKind, RESOURCE_TYPES } from '../resources.ts';
import type { ObjectStore, StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { ReconcileQueue } from './reconcile-queue.ts';
import type { SimClient } from './sim-client.ts';

const NAMESPACE = findByKind('v1', 'Namespace')!;
/**
 * Looked up on each use: CustomResourceDefinitions add namespaced types while the server runs.
 * Views (events.k8s.io/v1 Events) are left out: their objects are their stored type's, counted
 * and deleted once.
 */
const namespacedTypes = () => RESOURCE_TYPES.filter((t) => t.namespaced && !t.view);

export class NamespaceController {
  private readonly queue: ReconcileQueue;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: ObjectStore,
    private readonly client: SimClient,
    onError: (what: string, err: unknown) => void,
  ) {
    this.queue = new ReconcileQueue(
      (ns) => this.reconcile(ns),
      (ns, e) => onError(`namespace ${ns}`, e),
    );
    this.unsubscribe = store.subscribe((event) => this.observe(event));
    for (const ns of store.list(typeKey(NAMESPACE)))
      if (ns.metadata.deletionTimestamp) this.queue.add(ns.metadata.name!);
  }

  stop(): void {
    this.unsubscribe();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    const { object } = event;
    if (event.typeKey === typeKey(NAMESPACE)) {
      if (event.type !== 'DELETED' && object.metadata.deletionTimestamp)
        this.queue.add(object.metadata.name!);
      return;
    }
    // Something left a terminating namespace: maybe it is empty now.
    if (event.type === 'DELETED' && object.metadata.namespace) {
      const ns = this.store.get(typeKey(NAMESPACE), undefined, object.metadata.namespace);
      if (ns?.metadata.deletionTimestamp) this.queue.add(ns.metadata.name!);
    }
  }

  private reconcile(name: string): void {
    const ns = this.store.get(typeKey(NAMESPACE), undefined, name);
    if (!ns?.metadata.deletionTimestamp) return;
    let remaining = 0;
    const NAMESPACED = namespacedTypes();
    for (const type of NAMESPACED) {
      for (const object of this.store.list(typeKey(type), name)) {
        remaining++;
        if (!object.metadata.deletionTimestamp)
          this.client.delete(type, name, object.metadata.name!, 'Background');
      }
    }
    const left = NAMESPACED.reduce((n, type) => n + this.store.list(typeKey(type), name).length, 0);
    this.setConditions(ns, left, remaining);
    if (left > 0) return;
    const current = this.store.get(typeKey(NAMESPACE), undefined, name);
    if (!current) return;
    const finalizers = ((current.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).filter(
      (f) => f !== 'kubernetes',
    );
    const next: KubeObject = clone(current);
    next.spec = { ...(next.spec as object), finalizers };
    this.client.update(NAMESPACE, next, 'finalize');
  }

  /** The NamespaceContentRemaining condition `kubectl describe ns` shows while content goes. */
  private setConditions(ns: KubeObject, left: number, _seen: number): void {
    const status = (ns.status ?? {}) as {
      phase?: string;
      conditions?: { type: string; status: string; reason: string; message: string }[];
    };
    const condition = {
      type: 'NamespaceContentRemaining',
      status: left > 0 ? 'True' : 'False',
      reason: left > 0 ? 'SomeResourcesRemain' : 'ContentDeleted',
      message:
        left > 0 ? `Some resources are remaining: ${left} object(s)` : 'All content successfully removed',
    };
    const existing = status.conditions?.find((c) => c.type === condition.type);
    if (existing && existing.status === condition.status && existing.message === condition.message) return;
    const next = clone(ns);
    const conditions = (status.conditions ?? []).filter((c) => c.type !== condition.type);
    next.status = {
      ...status,
      conditions: [
        ...conditions,
        { ...condition, lastTransitionTime: `${new Date().toISOString().slice(0, 19)}Z` },
      ],
    };
    const current = this.store.get(typeKey(NAMESPACE), undefined, ns.metadata.name!);
    if (current) this.client.update(NAMESPACE, { ...next, metadata: current.metadata }, 'status');
  }
}
