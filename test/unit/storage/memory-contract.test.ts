/** The release storage contract (test/fixtures/storage/history-contract.ts) on the in-memory driver. */
import { MemoryAppRecords, MemoryReleaseHistory } from '../../../src/storage/index.ts';
import { releaseHistoryContract, type TestSpec } from '../../fixtures/storage/history-contract.ts';

releaseHistoryContract('in memory', async ({ historyMax, spec, now }) => {
  const apps = new MemoryAppRecords<TestSpec>({ spec, now });
  const history = new MemoryReleaseHistory({ apps, historyMax, now });
  return {
    history,
    apps,
    async writesDuring(fn) {
      const before = history.writes + apps.writes;
      await fn();
      return history.writes + apps.writes - before;
    },
  };
});
