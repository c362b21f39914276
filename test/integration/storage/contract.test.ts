/**
 * The release storage contract (test/fixtures/storage/history-contract.ts) on the Secret driver,
 * through kube-sim: the same suite the in-memory driver passes (test/unit/storage/memory-contract.test.ts).
 */
import { afterAll } from 'vitest';
import { isWrite, type StorageHarness, startStorageHarness } from '../../fixtures/storage/harness.ts';
import type { TestSpec } from '../../fixtures/storage/history-contract.ts';
import { releaseHistoryContract } from '../../fixtures/storage/history-contract.ts';

let h: StorageHarness | undefined;
afterAll(() => h?.stop());

releaseHistoryContract('Secrets', async ({ historyMax, spec, now }) => {
  h = await startStorageHarness();
  const harness = h;
  const store = await harness.store<TestSpec>({ historyMax, spec, now });
  return {
    history: store,
    apps: store.apps,
    async writesDuring(fn) {
      const requests = harness.record();
      await fn();
      return requests().filter(isWrite).length;
    },
  };
});
