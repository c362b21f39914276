import { describe, expect, it } from 'vitest';
import { loadFleetConfig, requireSecret } from '../../src/core/env.ts';
import { laneOfJobId, parseLaneId } from '../../src/jobs/lane.ts';

describe('fleet configuration', () => {
  it('has documented defaults', () => {
    const config = loadFleetConfig({});
    expect(config).toMatchObject({
      redisUrl: 'redis://127.0.0.1:6379',
      namespace: 'longshore-system',
      concurrency: 8,
      heapGrowthPercent: 20,
      shutdownDeadlineMs: 25_000,
      metricsPort: 9464,
      jobAttempts: 5,
      secret: undefined,
    });
  });

  it('treats empty variables as unset', () => {
    expect(loadFleetConfig({ REDIS_URL: '', LONGSHORE_CONCURRENCY: '' }).concurrency).toBe(8);
  });

  it('names every bad variable and hides the secret', () => {
    expect(() =>
      loadFleetConfig({
        REDIS_URL: 'http://x',
        LONGSHORE_CONCURRENCY: 'many',
        LONGSHORE_SECRET: 'short-secret',
        LONGSHORE_NAMESPACE: 'Bad_NS',
      }),
    ).toThrow(
      /REDIS_URL: expected a redis:\/\/ or rediss:\/\/ URL \(got "http:\/\/x"\)[\s\S]*LONGSHORE_SECRET: must be at least 32 characters.*\(got \(hidden\)\)[\s\S]*LONGSHORE_NAMESPACE[\s\S]*LONGSHORE_CONCURRENCY: expected a whole number from 1 to 64 \(got "many"\)/,
    );
  });

  it('bounds the heap growth percent', () => {
    expect(loadFleetConfig({ LONGSHORE_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(() => loadFleetConfig({ LONGSHORE_HEAP_GROWTH_PERCENT: '500' })).toThrow(
      /LONGSHORE_HEAP_GROWTH_PERCENT: expected a whole number from 0 to 300 \(got "500"\)/,
    );
  });

  it('bounds the idle collection delay, 5 s by default', () => {
    expect(loadFleetConfig({}).idleGcSeconds).toBe(5);
    expect(loadFleetConfig({ LONGSHORE_IDLE_GC_SECONDS: '0' }).idleGcSeconds).toBe(0);
    expect(() => loadFleetConfig({ LONGSHORE_IDLE_GC_SECONDS: '-1' })).toThrow(
      /LONGSHORE_IDLE_GC_SECONDS: expected a whole number from 0 to 3600 \(got "-1"\)/,
    );
  });

  it('asks for the secret only when sealing needs it', () => {
    expect(() => requireSecret(loadFleetConfig({}))).toThrow(/LONGSHORE_SECRET is not set/);
    expect(requireSecret(loadFleetConfig({ LONGSHORE_SECRET: 'x'.repeat(32) }))).toHaveLength(32);
  });
});

describe('lane ids', () => {
  it('round-trips and finds the lane of an ordered job id', () => {
    expect(parseLaneId('app.web')).toEqual({ kind: 'app', name: 'web' });
    expect(parseLaneId('storage.data')).toEqual({ kind: 'storage', name: 'data' });
    expect(parseLaneId('fleet')).toEqual({ kind: 'fleet' });
    expect(parseLaneId('bogus.x')).toBeUndefined();
    expect(laneOfJobId('app.web.17')).toBe('app.web');
    expect(laneOfJobId('run.web.xabc')).toBeUndefined();
  });
});
