import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start redis-server and several Node processes each: two files at a time
    // keeps a 2-core machine responsive enough for lock renewals and timeouts to behave.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
