import { defineConfig } from 'vitest/config';

/** `npm run test:chaos`: the full chaos runs (test/chaos/*.chaos.ts), one at a time. */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.chaos.ts'],
    maxWorkers: 1,
    testTimeout: 900_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
