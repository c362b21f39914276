/**
 * The chaos run's API faults and the random streams behind them. Every stream is mulberry32
 * (test/helpers/prng.ts) seeded from the chaos seed, one seed per stream, so a seed gives the same
 * plan (plan.ts: the seed itself), the same driver and disturbance choices (`driverRandom`) and
 * the same sequence of kube-sim fault decisions (`faultRandom`, passed to the simulator's
 * `Faults`). mulberry32 seeds differing by an XOR constant start at unrelated points of its one
 * 2^32 cycle, so the streams do not overlap in the few thousand numbers a run draws.
 *
 * What a seed does not fix: which request meets which fault decision. Decisions are drawn in the
 * order matching requests reach kube-sim, and that order follows process scheduling (several
 * worker processes, informers, retries with back-off), which differs from run to run.
 */
import type { FaultRule } from '../../infra/kube-sim/server/faults.ts';
import { prng } from '../helpers/prng.ts';

/** The API faults of the run (issue 19): 5 % 5xx, 429s with Retry-After on writes. */
export const BASE_FAULTS: FaultRule[] = [
  { errorRate: 0.04, status: 500 },
  { errorRate: 0.01, status: 503, retryAfterSeconds: 1 },
  { verb: 'patch', errorRate: 0.03, status: 429, retryAfterSeconds: 1 },
  { verb: 'create', errorRate: 0.03, status: 429, retryAfterSeconds: 1 },
];

/** The driver's stream: gaps between jobs, which worker is killed, the API disturbances. */
export const driverRandom = (seed: number): (() => number) => prng(seed ^ 0x5eed);

/** kube-sim's fault decisions (error or not, reset or not) for this seed. */
export const faultRandom = (seed: number): (() => number) => prng(seed ^ 0xfa017);
