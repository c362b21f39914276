/**
 * The full chaos run (`npm run test:chaos`): 50 apps × 8 jobs by default, several worker
 * SIGKILLs, one Redis restart, for `CHAOS_SEEDS` consecutive seeds from `CHAOS_SEED`
 * (docs/testing.md, "Chaos"). Not part of `npm test`: vitest.chaos.config.ts runs it.
 */
import { describe, expect, it } from 'vitest';
import { describeReport, runChaos } from './chaos-run.ts';
import { chaosSeeds, fullSize } from './seeds.ts';

const size = fullSize();

describe(`chaos, ${size.apps} apps`, () => {
  for (const seed of chaosSeeds()) {
    it(`seed ${seed}: every job ends and the fleet matches the model`, { timeout: 900_000 }, async () => {
      const report = await runChaos(seed, size);
      console.log(describeReport(report));
      expect(report.findings, describeReport(report)).toEqual([]);
    });
  }
});
