/** kube-sim's fault rules: which requests a rule matches, and how its limit counts. */
import { describe, expect, it } from 'vitest';
import { Faults } from '../../../infra/kube-sim/server/faults.ts';
import { BASE_FAULTS, driverRandom, faultRandom } from '../../chaos/fault-stream.ts';
import { prng } from '../../helpers/prng.ts';

describe('Faults', () => {
  it('matches one namespace and one object name when the rule names them', () => {
    const faults = new Faults(() => 0);
    faults.add({ resource: '/secrets', namespace: 'default', name: 'pull-secret-web', latencyMs: 100 });
    expect(faults.decide('patch', '/secrets', 'default', 'pull-secret-web')).toEqual({
      kind: 'pass',
      latencyMs: 100,
    });
    expect(faults.decide('patch', '/secrets', 'default', 'config-web').latencyMs).toBe(0);
    expect(faults.decide('patch', '/secrets', 'other', 'pull-secret-web').latencyMs).toBe(0);
    // A collection request has no name: a rule naming an object never matches it.
    expect(faults.decide('list', '/secrets', 'default').latencyMs).toBe(0);
    expect(faults.matched()).toEqual([1]);
  });

  it('a latency-only rule with a limit delays that many requests, then no more', () => {
    const faults = new Faults(() => 0);
    faults.add({ verb: 'patch', latencyMs: 50, limit: 2 });
    const delays = [1, 2, 3].map(() => faults.decide('patch', '/secrets', 'default', 'x').latencyMs);
    expect(delays).toEqual([50, 50, 0]);
    expect(faults.matched()).toEqual([2]);
  });

  it('an error rule with a limit still adds its latency after its errors are used up', () => {
    const faults = new Faults(() => 0);
    faults.add({ verb: 'get', errorRate: 1, status: 503, latencyMs: 10, limit: 1 });
    expect(faults.decide('get', '/pods', 'default', 'p')).toEqual({
      kind: 'error',
      status: 503,
      latencyMs: 10,
    });
    expect(faults.decide('get', '/pods', 'default', 'p')).toEqual({ kind: 'pass', latencyMs: 10 });
    expect(faults.list()).toEqual([{ verb: 'get', errorRate: 1, status: 503, latencyMs: 10, limit: 1 }]);
  });
});

describe('Faults with a seeded generator (the chaos run, test/chaos/fault-stream.ts)', () => {
  /** The decisions for one fixed sequence of requests: a mix of verbs, as a worker sends them. */
  const decisions = (random: () => number) => {
    const faults = new Faults(random);
    faults.set(BASE_FAULTS);
    const verbs = ['get', 'list', 'patch', 'create', 'delete', 'watch'] as const;
    return Array.from({ length: 2000 }, (_, i) => {
      const d = faults.decide(verbs[i % verbs.length]!, '/secrets', 'default', `s${i % 7}`);
      return d.kind === 'error' ? `${i}:${d.status}` : d.kind === 'reset' ? `${i}:reset` : '';
    }).filter((d) => d !== '');
  };

  it('the same chaos seed gives the same sequence of fault decisions', () => {
    const first = decisions(faultRandom(7));
    expect(first.length).toBeGreaterThan(50);
    expect(decisions(faultRandom(7))).toEqual(first);
    expect(decisions(faultRandom(8))).not.toEqual(first);
  });

  it("the faults' stream is not the plan's or the driver's", () => {
    const take = (random: () => number) => Array.from({ length: 20 }, random);
    const faults = take(faultRandom(7));
    expect(faults).not.toEqual(take(prng(7)));
    expect(faults).not.toEqual(take(driverRandom(7)));
  });
});
