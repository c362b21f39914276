/**
 * KeyOrdered (infra/kube-sim/store/key-ordered.ts): lists in key order whether it keeps its
 * order at once (small) or sorts again when listed (past its eager limit), through inserts,
 * replacements and deletions.
 */
import { describe, expect, it } from 'vitest';
import { KeyOrdered } from '../../../infra/kube-sim/store/key-ordered.ts';
import type { KubeObject } from '../../../infra/kube-sim/types.ts';
import { prng } from '../../helpers/prng.ts';

const object = (name: string, version: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, resourceVersion: String(version) },
});

describe('kube-sim KeyOrdered', () => {
  it('lists in key order below and above its eager limit', () => {
    const random = prng(3);
    const map = new KeyOrdered();
    const live = new Map<string, KubeObject>();
    const check = () => {
      const expected = [...live.keys()].sort().map((k) => live.get(k));
      expect(map.ordered()).toEqual(expected);
      expect(map.size).toBe(live.size);
    };
    for (const target of [500, 12_000, 300]) {
      for (
        let step = 0;
        step < 15_000 && (target > live.size ? live.size < target : live.size > target);
        step++
      ) {
        const key = `ns/e-${Math.floor(random() * 20_000)}`;
        if (target > live.size || random() < 0.1) {
          const o = object(key, step);
          map.set(key, o);
          live.set(key, o);
        } else if (live.has(key) || random() < 0.5) {
          map.delete(key);
          live.delete(key);
        }
        if (step % 2_000 === 0) check();
      }
      check();
    }
    // Replacing an existing key changes what is listed, not where.
    const [first] = [...live.keys()].sort();
    map.set(first!, object(first!, -1));
    expect(map.ordered()[0]!.metadata.resourceVersion).toBe('-1');
  });
});
