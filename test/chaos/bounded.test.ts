/**
 * The bounded chaos run of `npm test` (CI): one seed, 10 apps × 4 jobs, one worker SIGKILL and one
 * Redis restart, every check of the full run (docs/testing.md, "Chaos"). `npm run test:chaos`
 * runs the full size; a failure prints the seed that reproduces it.
 */
import { describe, expect, it } from 'vitest';
import { describeReport, runChaos } from './chaos-run.ts';
import { BOUNDED_SIZE, chaosSeeds } from './seeds.ts';

describe('chaos, bounded', () => {
  const seed = chaosSeeds()[0]!;
  it(`seed ${seed}: every job ends and the fleet matches the model`, { timeout: 240_000 }, async () => {
    const report = await runChaos(seed, BOUNDED_SIZE);
    console.log(describeReport(report));
    expect(report.findings, describeReport(report)).toEqual([]);
  });
});
