/**
 * How many Pods each Node runs (bound and not yet Succeeded or Failed), kept up to date from the
 * store's events: the scheduler's least-loaded choice reads it instead of counting every Pod of
 * the cluster on each placement, which with thousands of Pods was one of the simulator's largest
 * costs (fleet-scale profile at 1,000 apps). Started after the store is loaded (snapshots load
 * without events), like the controllers that use it.
 */
import { typeKey } from '../api/service.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import { POD, type Pod } from './workload-types.ts';

const POD_KEY = typeKey(POD);

/** The Node a Pod occupies, if it occupies one. */
function occupied(pod: KubeObject | undefined): string | undefined {
  const p = pod as Pod | undefined;
  const phase = p?.status?.phase;
  if (!p?.spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return undefined;
  return p.spec.nodeName;
}

export class NodeLoad {
  private readonly counts = new Map<string, number>();
  private readonly unsubscribe: () => void;

  constructor(store: ObjectStore) {
    for (const pod of store.unordered(POD_KEY)) this.adjust(occupied(pod), 1);
    this.unsubscribe = store.subscribe((event) => {
      if (event.typeKey !== POD_KEY) return;
      this.adjust(occupied(event.previous), -1);
      if (event.type !== 'DELETED') this.adjust(occupied(event.object), 1);
    });
  }

  of(node: string): number {
    return this.counts.get(node) ?? 0;
  }

  stop(): void {
    this.unsubscribe();
  }

  private adjust(node: string | undefined, by: number): void {
    if (node === undefined) return;
    const n = (this.counts.get(node) ?? 0) + by;
    if (n === 0) this.counts.delete(node);
    else this.counts.set(node, n);
  }
}
