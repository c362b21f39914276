/**
 * A map of objects by key that also keeps its keys sorted, so listing in key order (as etcd
 * lists) costs one pass instead of a sort. Why: every controller sync lists a namespace, and with
 * 1,000 apps in one namespace the sort of thousands of string keys on each list was a large share
 * of the simulator's time (fleet-scale profile). Replacing an existing key's object — most writes
 * are status updates — leaves the order alone; a new or deleted key is put in or taken out at its
 * place by binary search. Past EAGER_LIMIT keys (Events, which are written all the time and
 * seldom listed) a new or deleted key only marks the order stale, and the next list sorts once.
 */
import type { KubeObject } from '../types.ts';

const EAGER_LIMIT = 8_192;

/** Index of the first key in `keys` (sorted) that is not below `key`. */
function lowerBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class KeyOrdered {
  private readonly objects = new Map<string, KubeObject>();
  /** The keys in order, or undefined when stale (sorted again by the next `ordered`). */
  private keys: string[] | undefined = [];

  get size(): number {
    return this.objects.size;
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  set(key: string, object: KubeObject): void {
    if (!this.objects.has(key) && this.keys) {
      if (this.keys.length >= EAGER_LIMIT) this.keys = undefined;
      else this.keys.splice(lowerBound(this.keys, key), 0, key);
    }
    this.objects.set(key, object);
  }

  delete(key: string): boolean {
    if (!this.objects.delete(key)) return false;
    if (this.keys) {
      if (this.keys.length >= EAGER_LIMIT) this.keys = undefined;
      else this.keys.splice(lowerBound(this.keys, key), 1);
    }
    return true;
  }

  /** The objects in key order (a new array). */
  ordered(): KubeObject[] {
    this.keys ??= [...this.objects.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return this.keys.map((key) => this.objects.get(key)!);
  }

  /** The objects in no particular order (no copy). */
  values(): IterableIterator<KubeObject> {
    return this.objects.values();
  }
}
