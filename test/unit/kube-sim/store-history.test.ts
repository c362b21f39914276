/**
 * The store's bounded change history (infra/kube-sim/store/object-store.ts): trimmed in steps, it
 * always keeps at least its capacity of recent events, a watch resuming inside it gets exactly the
 * events after its resourceVersion, and one from before it is refused (410 upstream).
 */
import { describe, expect, it } from 'vitest';
import { ObjectStore } from '../../../infra/kube-sim/store/object-store.ts';

const configMap = (name: string, value: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { value },
});

describe('kube-sim store history', () => {
  it('keeps at least its capacity of events and resumes exactly after a kept revision', () => {
    const capacity = 8;
    const store = new ObjectStore(capacity);
    store.create('/configmaps', configMap('c', '0'));
    for (let i = 1; i <= 100; i++) {
      store.update('/configmaps', configMap('c', String(i)));
      const rv = store.currentRv;
      // The last `capacity` events are always there, in order, whatever the trim step.
      const from = Math.max(0, rv - capacity);
      const events = store.eventsAfter(from);
      expect(events, `after ${i} writes`).toBeDefined();
      expect(events!.map((e) => e.rv)).toEqual(Array.from({ length: rv - from }, (_, k) => from + 1 + k));
      // Anything older than what was dropped is refused, never answered with a gap.
      const oldest = store.oldestResumableRv;
      if (oldest > 0) expect(store.eventsAfter(oldest - 1)).toBeUndefined();
      expect(store.eventsAfter(oldest)![0]!.rv).toBe(oldest + 1);
    }
    expect(rvSpan(store)).toBeLessThanOrEqual(capacity + capacity / 4);
  });
});

function rvSpan(store: ObjectStore): number {
  return store.currentRv - store.oldestResumableRv;
}
