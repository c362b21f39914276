/** The chaos driver's plan (test/chaos/plan.ts): pure and seeded, and what its storage jobs assume. */
import { describe, expect, it } from 'vitest';
import { expectedState } from '../../chaos/model.ts';
import { type PlannedJob, planChaos } from '../../chaos/plan.ts';

const SIZE = { apps: 50, jobsPerApp: 8, kills: 4, redisRestarts: 1, workers: 1, concurrency: 4 };
const seeds = Array.from({ length: 20 }, (_, i) => i + 1);

describe('planChaos', () => {
  it('the same seed gives the same plan', () => {
    expect(planChaos(5, SIZE)).toEqual(planChaos(5, SIZE));
    expect(planChaos(6, SIZE).jobs).not.toEqual(planChaos(5, SIZE).jobs);
  });

  it('the kinds from before the storage and run jobs still make most of the mix', () => {
    const jobs = seeds.flatMap((seed) => planChaos(seed, SIZE).jobs);
    const added = jobs.filter((j) => ['storage-create', 'mounts', 'run'].includes(j.type)).length;
    expect(added).toBeGreaterThan(0);
    expect(added / jobs.length).toBeLessThan(0.2);
    expect(jobs.length).toBe(seeds.length * SIZE.apps * SIZE.jobsPerApp);
  });

  it('mounts only entries created before and not destroyed; each entry is created once', () => {
    for (const seed of seeds) {
      const { jobs } = planChaos(seed, SIZE);
      // Everything succeeding: the model then holds the driver's own beliefs.
      const model = expectedState(
        jobs,
        jobs.map(() => 'completed'),
      );
      expect(model.impossible, `seed ${seed}`).toEqual([]);
      const created = jobs.filter(
        (j): j is PlannedJob & { type: 'storage-create' } => j.type === 'storage-create',
      );
      expect(new Set(created.map((j) => j.entry)).size).toBe(created.length);
      for (const [entry, state] of model.entries)
        if (state.destroyedBy !== undefined)
          expect(
            jobs
              .slice(state.destroyedBy)
              .some((j) => j.type === 'mounts' && j.action === 'mount' && j.entry === entry),
            `seed ${seed}: ${entry} mounted after its destroy`,
          ).toBe(false);
    }
  });
});
