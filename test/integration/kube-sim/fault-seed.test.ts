/**
 * `startSim({ faultRandom })`: a simulator given a seeded generator answers the same sequence of
 * requests with the same injected faults (the chaos run's reproducible faults, docs/kube-sim.md).
 */
import { describe, expect, it } from 'vitest';
import { prng } from '../../helpers/prng.ts';
import { startSimWithClients } from '../../helpers/sim.ts';

/** The status of each of 60 reads of one ConfigMap, one after the other, under a 30 % 503 rule. */
async function statuses(seed: number): Promise<number[]> {
  const c = await startSimWithClients({ controllers: false, faultRandom: prng(seed) });
  try {
    await c.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'x' } } });
    c.sim.faults.set([{ verb: 'get', resource: '/configmaps', errorRate: 0.3, status: 503 }]);
    const out: number[] = [];
    for (let i = 0; i < 60; i++) {
      const answer = await fetch(`${c.sim.url}/api/v1/namespaces/default/configmaps/x`);
      await answer.arrayBuffer();
      out.push(answer.status);
    }
    return out;
  } finally {
    await c.sim.stop();
  }
}

describe('kube-sim fault seed', () => {
  it('the same seed injects the same faults into the same requests', async () => {
    const first = await statuses(11);
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await statuses(11)).toEqual(first);
    expect(await statuses(12)).not.toEqual(first);
  });
});
