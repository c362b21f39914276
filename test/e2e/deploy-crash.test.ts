/**
 * A worker killed (SIGKILL) in the middle of a deploy: the job's lock expires, another worker takes
 * it over with the same idempotency key, the engine continues the pending revision, and the app
 * ends deployed with one revision per deploy — nothing lost, nothing doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import type { Proc } from '../helpers/processes.ts';
import { until } from '../helpers/wait.ts';

let fleet: DeployFleet;
let store: SecretReleaseStore;

beforeAll(async () => {
  fleet = await startDeployFleet();
  store = await fleet.store();
});

afterAll(async () => {
  await fleet?.stop();
});

describe('a worker killed mid-deploy', () => {
  it('is taken over by another worker, and the deploy converges to one deployed revision', async () => {
    const first = await fleet.startWorker();
    await fleet.cli(['deploy', 'crashy', '--image', 'registry.example.com/crashy:1', '--wait']);
    expect(store.history('crashy').map((r) => r.status)).toEqual(['deployed']);

    // Slow pods, so the next deploy is still waiting for its rollout when its worker dies.
    fleet.sim.settings.podReadyDelayMs = 4_000;
    const waiting = fleet.cli(['deploy', 'crashy', '--image', 'registry.example.com/crashy:2', '--wait'], {
      timeoutMs: 120_000,
    });
    await until(
      () => (store.last('crashy')?.status === 'pending-upgrade' ? true : undefined),
      'the deploy to store its pending revision',
    );
    // Killed while it waits for the rollout: the new image is applied, the pods not ready yet.
    await until(async () => {
      const d = await fleet.apps.readNamespacedDeployment({ name: 'crashy-web', namespace: 'default' });
      return d.spec?.template.spec?.containers[0]?.image === 'registry.example.com/crashy:2' || undefined;
    }, 'the new image to be applied');
    first.kill('SIGKILL');
    await first.exited;

    const second: Proc = await fleet.startWorker();
    const result = await waiting;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/crashy: revision 2/);

    await until(
      () => (store.last('crashy')?.status === 'deployed' ? true : undefined),
      'revision 2 deployed',
    );
    expect(store.history('crashy').map((r) => [r.revision, r.status])).toEqual([
      [1, 'superseded'],
      [2, 'deployed'],
    ]);
    const web = await fleet.apps.readNamespacedDeployment({ name: 'crashy-web', namespace: 'default' });
    expect(web.spec?.template.spec?.containers[0]?.image).toBe('registry.example.com/crashy:2');
    expect(web.status?.availableReplicas).toBe(1);
    // Two attempts: the killed worker's, never ended, and the one that finished on the other worker.
    const shown = JSON.parse((await fleet.cli(['jobs:show', 'app.crashy.2', '--json'])).stdout) as {
      attempts: { pid: number; endedAt?: number; outcome?: string }[];
    };
    expect(shown.attempts.map((a) => [a.pid, a.outcome])).toEqual([
      [first.pid, undefined],
      [second.pid, 'completed'],
    ]);
  });
});
