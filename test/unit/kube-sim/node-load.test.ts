/**
 * The scheduler's Node load (infra/kube-sim/controllers/node-load.ts) always equals a count over
 * every stored Pod (bound, neither Succeeded nor Failed), through binds, phase changes, moves and
 * deletions, including Pods stored before it started.
 */
import { describe, expect, it } from 'vitest';
import { typeKey } from '../../../infra/kube-sim/api/service.ts';
import { NodeLoad } from '../../../infra/kube-sim/controllers/node-load.ts';
import { POD } from '../../../infra/kube-sim/controllers/workload-types.ts';
import { ObjectStore } from '../../../infra/kube-sim/store/object-store.ts';
import type { KubeObject } from '../../../infra/kube-sim/types.ts';
import { prng } from '../../helpers/prng.ts';

const POD_KEY = typeKey(POD);
const pod = (name: string, nodeName: string | undefined, phase: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { containers: [], ...(nodeName ? { nodeName } : {}) },
  status: { phase },
});

describe('kube-sim NodeLoad', () => {
  it('counts like a scan of every Pod', () => {
    const random = prng(9);
    const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
    const store = new ObjectStore();
    store.create(POD_KEY, pod('before', 'node-1', 'Running'));
    const load = new NodeLoad(store);
    const scan = (node: string) =>
      store.list(POD_KEY).filter((p) => {
        const phase = (p.status as { phase?: string }).phase;
        return (
          (p.spec as { nodeName?: string }).nodeName === node && phase !== 'Succeeded' && phase !== 'Failed'
        );
      }).length;
    for (let step = 0; step < 2_000; step++) {
      const name = `p${Math.floor(random() * 30)}`;
      const exists = store.get(POD_KEY, 'default', name);
      const next = pod(
        name,
        pick(['node-1', 'node-2', undefined]),
        pick(['Pending', 'Running', 'Succeeded', 'Failed']),
      );
      if (exists && random() < 0.3) store.delete(POD_KEY, 'default', name);
      else if (exists) store.update(POD_KEY, next);
      else store.create(POD_KEY, next);
      for (const node of ['node-1', 'node-2']) expect(load.of(node)).toBe(scan(node));
    }
    load.stop();
  });
});
