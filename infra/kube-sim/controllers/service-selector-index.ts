/**
 * Which Services might select a Pod, without looking at every Service of its namespace: each
 * Service with a selector is filed under one entry of it (the smallest key, so the choice is
 * stable), and a Pod's candidates are the Services filed under one of its own labels. A candidate
 * must still match the whole selector. Why: the endpoints controller looked at every Service of
 * the namespace on every Pod change, and with 1,000 apps in one namespace that scan was the
 * simulator's largest cost (fleet-scale profile).
 */
import type { KubeObject } from '../types.ts';

const entryKey = (namespace: string, key: string, value: string) => `${namespace}\0${key}\0${value}`;

export class ServiceSelectorIndex {
  /** Service keys (`namespace/name`) by the entry they are filed under. */
  private readonly byEntry = new Map<string, Set<string>>();
  /** The entry each indexed Service is filed under. */
  private readonly entryOf = new Map<string, string>();

  /** Files `service` under `key` (its `namespace/name`), or forgets it when deleted or selectorless. */
  update(key: string, service: KubeObject | undefined): void {
    const previous = this.entryOf.get(key);
    if (previous !== undefined) {
      const keys = this.byEntry.get(previous);
      keys?.delete(key);
      if (keys?.size === 0) this.byEntry.delete(previous);
      this.entryOf.delete(key);
    }
    const selector = (service?.spec as { selector?: Record<string, string> } | undefined)?.selector;
    const first = Object.keys(selector ?? {}).sort()[0];
    if (!service || !selector || first === undefined) return;
    const entry = entryKey(service.metadata.namespace ?? '', first, selector[first]!);
    let keys = this.byEntry.get(entry);
    if (!keys) {
      keys = new Set();
      this.byEntry.set(entry, keys);
    }
    keys.add(key);
    this.entryOf.set(key, entry);
  }

  /** Keys of the Services in `namespace` filed under one of `labels` (a superset of those selecting them). */
  candidates(namespace: string, labels: Record<string, string> | undefined, into: Set<string>): void {
    for (const [k, v] of Object.entries(labels ?? {})) {
      const keys = this.byEntry.get(entryKey(namespace, k, v));
      if (keys) for (const key of keys) into.add(key);
    }
  }
}
