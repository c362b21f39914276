/**
 * Pending recovery: a worker process is killed (SIGKILL) in the middle of an upgrade, leaving a
 * `pending-*` revision. Another job (another holder) marks it failed as interrupted and
 * proceeds; the same job retried (same holder) continues that very revision instead of creating
 * a duplicate. Never "another operation is in progress".
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED } from '../../../src/releases/index.ts';
import { killAll, ROOT, startProcess } from '../../helpers/processes.ts';
import { until } from '../../helpers/wait.ts';
import { appRelease, type Harness, startHarness } from './harness.ts';

const FIXTURE = `${ROOT}test/fixtures/releases/crash-upgrade.ts`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await killAll();
});
afterAll(async () => {
  await h?.stop();
});

/** Runs an upgrade in a child process that SIGKILLs itself at `crashAt`. */
async function crashingUpgrade(release: string, holder: string, image: string, crashAt: string) {
  const child = startProcess(FIXTURE, [], {
    SIM_KUBECONFIG: h.c.sim.kubeconfig(),
    NAMESPACE: release,
    RELEASE: release,
    HOLDER: holder,
    IMAGE: image,
    CRASH_AT: crashAt,
  });
  const exit = await child.exited;
  expect(exit.signal, child.output()).toBe('SIGKILL');
  return child;
}

/** For the store cache of this process to see what a killed child left (read from memory: poll often). */
const CACHE_WAIT = { timeoutMs: 10_000, intervalMs: 20, errors: 'throw' } as const;

describe('a worker killed mid-upgrade', () => {
  it('another holder marks the pending revision failed (interrupted) and succeeds', async () => {
    await h.engine.upgrade(appRelease('crash', 'job-1'));
    // Killed after one of the three changed objects of revision 2 was applied.
    await crashingUpgrade('crash', 'job-2', 'registry.example/web:2', 'apply:2');
    await until(
      () => h.engine.status('crash')?.status === 'pending-upgrade',
      'the pending revision',
      CACHE_WAIT,
    );
    expect(h.engine.status('crash')).toMatchObject({ revision: 2, holder: 'job-2' });

    const result = await h.engine.upgrade(appRelease('crash', 'job-3', { image: 'registry.example/web:3' }));
    expect(result).toMatchObject({
      outcome: 'deployed',
      revision: 3,
      recovered: { revision: 2, action: 'marked-failed' },
    });
    expect(h.engine.history('crash').map((r) => [r.revision, r.status])).toEqual([
      [1, 'superseded'],
      [2, 'failed'],
      [3, 'deployed'],
    ]);
    expect(h.engine.history('crash')[1]?.description).toBe(INTERRUPTED);
    const web = await h.c.apps.readNamespacedDeployment({ namespace: 'crash', name: 'crash-web' });
    expect(web.spec?.template.spec?.containers[0]?.image).toBe('registry.example/web:3');
  });

  it('the same holder continues the same revision (no duplicate), whether killed while waiting or finishing', async () => {
    await crashingUpgrade('crash', 'job-4', 'registry.example/web:4', 'wait');
    await until(() => h.engine.status('crash')?.revision === 4, 'the pending revision 4', CACHE_WAIT);
    expect(h.engine.status('crash')).toMatchObject({ status: 'pending-upgrade', holder: 'job-4' });

    const resumed = await h.engine.upgrade({
      ...appRelease('crash', 'job-4', { image: 'registry.example/web:4' }),
    });
    expect(resumed).toMatchObject({
      outcome: 'deployed',
      revision: 4,
      recovered: { revision: 4, action: 'continued' },
    });
    expect(h.engine.history('crash').map((r) => [r.revision, r.status])).toEqual([
      [1, 'superseded'],
      [2, 'failed'],
      [3, 'superseded'],
      [4, 'deployed'],
    ]);

    // Killed just before marking revision 5 deployed: the retry only finishes it.
    await crashingUpgrade('crash', 'job-5', 'registry.example/web:5', 'finish');
    await until(() => h.engine.status('crash')?.revision === 5, 'the pending revision 5', CACHE_WAIT);
    h.c.sim.requests.reset();
    const finished = await h.engine.upgrade(
      appRelease('crash', 'job-5', { image: 'registry.example/web:5' }),
    );
    expect(finished).toMatchObject({ revision: 5, recovered: { action: 'continued' } });
    expect(h.engine.history('crash').map((r) => r.status)).toEqual([
      'superseded',
      'failed',
      'superseded',
      'superseded',
      'deployed',
    ]);
    const web = await h.c.apps.readNamespacedDeployment({ namespace: 'crash', name: 'crash-web' });
    expect(web.spec?.template.spec?.containers[0]?.image).toBe('registry.example/web:5');
  });
});
