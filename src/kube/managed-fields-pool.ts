/**
 * One copy of each distinct field-ownership tree among the objects a worker caches. Every live
 * object carries `metadata.managedFields`: per field manager, a tree naming each field it set
 * (`fieldsV1`, dozens of small objects for a Deployment). The trees repeat from app to app — one
 * chart renders the same fields, and the controllers' status entries are the same everywhere — so
 * with 1,000 apps they were ~21 MB of a worker's heap (a heap snapshot: docs/scaling.md) for a few
 * hundred distinct trees. Readers only look at them (replicas hand-over, ownership checks; the
 * pull-secret hand-over edits a structuredClone), so they can share one frozen tree: a write to a
 * shared tree throws instead of changing every object that holds it.
 *
 * Trees are held weakly: a tree no cached object uses any more is collected, and its key with it.
 */
import type { KubernetesObject } from '@kubernetes/client-node';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export class ManagedFieldsPool {
  private readonly trees = new Map<string, WeakRef<object>>();
  private readonly forget = new FinalizationRegistry<string>((key) => {
    // The key may have been taken by a newer tree since: only a dead entry goes.
    if (this.trees.get(key)?.deref() === undefined) this.trees.delete(key);
  });

  /** Replaces each managedFields entry's tree of `o` (in place) by the pool's copy of it. */
  share(o: KubernetesObject): void {
    for (const entry of o.metadata?.managedFields ?? []) {
      const tree = entry.fieldsV1 as object | undefined;
      if (!tree || typeof tree !== 'object' || Object.isFrozen(tree)) continue;
      const key = JSON.stringify(tree);
      const held = this.trees.get(key)?.deref();
      if (held) {
        entry.fieldsV1 = held;
        continue;
      }
      deepFreeze(tree);
      this.trees.set(key, new WeakRef(tree));
      this.forget.register(tree, key);
    }
  }

  /** Distinct trees held (tests). */
  get size(): number {
    return this.trees.size;
  }
}

/** The process's pool: every live-object informer shares it (the same trees recur across kinds' caches too). */
export const managedFieldsPool = new ManagedFieldsPool();
