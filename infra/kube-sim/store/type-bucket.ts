/**
 * One stored type's objects by key (`namespace/name`, or `name` when cluster-scoped), with indexes
 * by namespace and by controller. Why: the workload controllers look, on every sync, at the
 * objects a controller may claim — those it controls and the orphans of its namespace
 * (controller_ref_manager.go) — and a scan of the type made each sync cost the cluster's size.
 * With 1,000 apps in one namespace (Dokku's `default`) the simulator spent its time filtering
 * other apps' pods (the fleet-scale benchmark's profile), not simulating. Now a claim costs the
 * owner's objects plus the namespace's orphans.
 */
import { matchesEquality } from '../selectors.ts';
import type { KubeObject } from '../types.ts';
import { KeyOrdered } from './key-ordered.ts';

type Objects = Map<string, KubeObject>;

const controllerUid = (object: KubeObject): string | undefined =>
  object.metadata.ownerReferences?.find((r) => r.controller === true)?.uid;

/** Files `object` under `key` in the index entry `at`, made with `make` when it is new. */
function add<T extends { set(key: string, object: KubeObject): unknown }>(
  index: Map<string, T>,
  at: string,
  key: string,
  object: KubeObject,
  make: () => T,
): void {
  let objects = index.get(at);
  if (!objects) {
    objects = make();
    index.set(at, objects);
  }
  objects.set(key, object);
}

const newMap = (): Objects => new Map();

function remove(index: Map<string, Objects>, at: string, key: string): void {
  const objects = index.get(at);
  objects?.delete(key);
  if (objects?.size === 0) index.delete(at);
}

/** Namespaces, label keys and values cannot hold a NUL. */
const labelIndexKey = (namespace: string, key: string, value: string) => `${namespace}\0${key}\0${value}`;

const inKeyOrder = (objects: Iterable<[string, KubeObject]>): KubeObject[] =>
  [...objects].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);

export class TypeBucket {
  private readonly all = new KeyOrdered();
  private readonly byNamespace = new Map<string, KeyOrdered>();
  /** Objects by their controller's uid. */
  private readonly byController = new Map<string, Objects>();
  /** Namespaced objects without a controller, by namespace. */
  private readonly orphans = new Map<string, Objects>();
  /** Namespaced objects by `namespace`, label key and value (labelIndexKey). */
  private readonly byLabel = new Map<string, Objects>();

  get size(): number {
    return this.all.size;
  }

  get(key: string): KubeObject | undefined {
    return this.all.get(key);
  }

  /** Stores under `key`; the indexes follow the object's namespace, controller and labels. */
  set(key: string, object: KubeObject): void {
    // The namespace is part of the key, so replacing an object never moves it in the ordered
    // maps: only the secondary indexes (controller, orphans, labels) are redone.
    this.unindexSecondary(key);
    this.all.set(key, object);
    const namespace = object.metadata.namespace;
    if (namespace) add(this.byNamespace, namespace, key, object, () => new KeyOrdered());
    this.indexSecondary(key, object);
  }

  delete(key: string): void {
    const previous = this.all.get(key);
    if (!previous) return;
    this.unindexSecondary(key);
    this.all.delete(key);
    const namespace = previous.metadata.namespace;
    if (!namespace) return;
    const objects = this.byNamespace.get(namespace);
    objects?.delete(key);
    if (objects?.size === 0) this.byNamespace.delete(namespace);
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

  /**
   * The objects of `namespace` carrying every label of `selector` (a non-empty equality selector:
   * a Service's), in key order, from the label index: the endpoints controller looked through every
   * Pod of the namespace on each sync.
   */
  withLabels(namespace: string, selector: Record<string, string>): KubeObject[] {
    let smallest: Objects | undefined;
    for (const [k, v] of Object.entries(selector)) {
      const objects = this.byLabel.get(labelIndexKey(namespace, k, v));
      if (!objects) return [];
      if (!smallest || objects.size < smallest.size) smallest = objects;
    }
    if (!smallest) return this.list(namespace);
    const matching = [...smallest].filter(([, o]) => matchesEquality(selector, o.metadata.labels));
    return inKeyOrder(matching);
  }

  /** The objects whose controller has `uid`, in key order. */
  controlledBy(uid: string): KubeObject[] {
    return inKeyOrder(this.byController.get(uid) ?? []);
  }

  private indexSecondary(key: string, object: KubeObject): void {
    const namespace = object.metadata.namespace;
    const controller = controllerUid(object);
    if (controller) add(this.byController, controller, key, object, newMap);
    if (!namespace) return;
    if (!controller) add(this.orphans, namespace, key, object, newMap);
    for (const [k, v] of Object.entries(object.metadata.labels ?? {}))
      add(this.byLabel, labelIndexKey(namespace, k, v), key, object, newMap);
  }

  private unindexSecondary(key: string): void {
    const previous = this.all.get(key);
    if (!previous) return;
    const namespace = previous.metadata.namespace;
    const controller = controllerUid(previous);
    if (controller) remove(this.byController, controller, key);
    if (!namespace) return;
    if (!controller) remove(this.orphans, namespace, key);
    for (const [k, v] of Object.entries(previous.metadata.labels ?? {}))
      remove(this.byLabel, labelIndexKey(namespace, k, v), key);
  }
}
