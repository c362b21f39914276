/**
 * One stored type's objects by key (`namespace/name`, or `name` when cluster-scoped), with indexes
 * by namespace and by controller. Why: the workload controllers look, on every sync, at the
 * objects a controller may claim — those it controls and the orphans of its namespace
 * (controller_ref_manager.go) — and a scan of the type made each sync cost the cluster's size.
 * With 1,000 apps in one namespace (Dokku's `default`) the simulator spent its time filtering
 * other apps' pods (the fleet-scale benchmark's profile), not simulating. Now a claim costs the
 * owner's objects plus the namespace's orphans.
 */
import type { KubeObject } from '../types.ts';
import { KeyOrdered } from './key-ordered.ts';

type Objects = Map<string, KubeObject>;

const controllerUid = (object: KubeObject): string | undefined =>
  object.metadata.ownerReferences?.find((r) => r.controller === true)?.uid;

function add(index: Map<string, Objects>, at: string, key: string, object: KubeObject): void {
  let objects = index.get(at);
  if (!objects) {
    objects = new Map();
    index.set(at, objects);
  }
  objects.set(key, object);
}

function addOrdered(index: Map<string, KeyOrdered>, at: string, key: string, object: KubeObject): void {
  let objects = index.get(at);
  if (!objects) {
    objects = new KeyOrdered();
    index.set(at, objects);
  }
  objects.set(key, object);
}

function remove(index: Map<string, Objects | KeyOrdered>, at: string, key: string): void {
  const objects = index.get(at);
  objects?.delete(key);
  if (objects?.size === 0) index.delete(at);
}

const inKeyOrder = (objects: Iterable<[string, KubeObject]>): KubeObject[] =>
  [...objects].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);

export class TypeBucket {
  private readonly all = new KeyOrdered();
  private readonly byNamespace = new Map<string, KeyOrdered>();
  /** Objects by their controller's uid. */
  private readonly byController = new Map<string, Objects>();
  /** Namespaced objects without a controller, by namespace. */
  private readonly orphans = new Map<string, Objects>();

  get size(): number {
    return this.all.size;
  }

  get(key: string): KubeObject | undefined {
    return this.all.get(key);
  }

  /** Stores under `key`; the indexes follow the object's namespace and controller reference. */
  set(key: string, object: KubeObject): void {
    this.unindex(key);
    this.all.set(key, object);
    const namespace = object.metadata.namespace;
    const controller = controllerUid(object);
    if (controller) add(this.byController, controller, key, object);
    if (!namespace) return;
    addOrdered(this.byNamespace, namespace, key, object);
    if (!controller) add(this.orphans, namespace, key, object);
  }

  delete(key: string): void {
    this.unindex(key);
    this.all.delete(key);
  }

  values(): IterableIterator<KubeObject> {
    return this.all.values();
  }

  /** Every object, or one namespace's, in key order as etcd lists them. */
  list(namespace?: string): KubeObject[] {
    const objects = namespace ? this.byNamespace.get(namespace) : this.all;
    return objects ? objects.ordered() : [];
  }

  /**
   * What a controller with `uid` may claim in `namespace`, in key order: the objects it controls
   * there and the namespace's orphans. Objects another controller owns are never claimed
   * (claimObjects skips them), so leaving them out changes no outcome.
   */
  claimable(namespace: string, uid: string): KubeObject[] {
    const owned = [...(this.byController.get(uid) ?? [])].filter(
      ([, o]) => o.metadata.namespace === namespace,
    );
    return inKeyOrder([...owned, ...(this.orphans.get(namespace) ?? [])]);
  }

  private unindex(key: string): void {
    const previous = this.all.get(key);
    if (!previous) return;
    const namespace = previous.metadata.namespace;
    const controller = controllerUid(previous);
    if (controller) remove(this.byController, controller, key);
    if (!namespace) return;
    remove(this.byNamespace, namespace, key);
    if (!controller) remove(this.orphans, namespace, key);
  }
}
