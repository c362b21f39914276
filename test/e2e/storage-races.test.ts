/**
 * storage:mount (the app's lane) against storage:destroy (the entry's lane), end to end: producer →
 * Redis → three worker processes → kube-sim. The two jobs are enqueued back to back, in both
 * orders; latency faults hold the first one inside its work long enough that, were the two lanes
 * not joined, the second would run meanwhile (the destroy finding no app that mounts the entry
 * while the mount deploys its claim, or the mount finding the entry while the destroy removes
 * it). A mount holds its entry's lane through a barrier (docs/ordering.md, "Barriers"), so they
 * run in enqueue order and the second sees the first's effect. Whatever the order, the end state
 * is consistent: no destroyed entry is still mounted in a saved spec, and no Deployment of the app
 * claims it.
 */
import type * as k8s from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobClient } from '../../src/jobs/client.ts';
import { toAppRecord } from '../../src/storage/app-record-secrets.ts';
import { RAW_SPEC } from '../../src/storage/app-records.ts';
import { appRecordName, indexName } from '../../src/storage/names.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { until } from '../helpers/wait.ts';

const SYSTEM_NAMESPACE = 'longshore-system';

let fleet: DeployFleet;
let producer: Redis;
let jobs: JobClient;

beforeAll(async () => {
  fleet = await startDeployFleet();
  for (let i = 0; i < 3; i++) await fleet.startWorker();
  producer = new Redis(fleet.redis.url, { maxRetriesPerRequest: null });
  jobs = new JobClient(producer, { attempts: 3, backoffMs: 200 });
});

afterAll(async () => {
  await jobs?.close();
  producer?.disconnect();
  await fleet?.stop();
});

/** Each case has an app of its own, so a case that fails leaves nothing the next one builds on. */
async function deployApp(app: string): Promise<void> {
  await fleet.ok([
    'deploy',
    app,
    '--image',
    'nginx:1.27',
    '--procfile',
    fleet.file(`${app}.Procfile`, 'web: nginx -g "daemon off;"\n'),
    '--wait',
  ]);
}

interface Ended {
  state: 'completed' | 'failed';
  reason: string;
}

async function ended(id: string): Promise<Ended> {
  return until(
    async () => {
      const state = await (await jobs.queue.getJob(id))?.getState();
      if (state !== 'completed' && state !== 'failed') return undefined;
      // Read again once it has ended: a job read before it failed has no failedReason yet.
      const job = await jobs.queue.getJob(id);
      return { state, reason: job?.failedReason ?? '' } as Ended;
    },
    `job ${id} to end`,
    { timeoutMs: 90_000 },
  );
}

/** The state the race is about, read from the API server (not through a cache). */
async function endState(
  app: string,
  entry: string,
): Promise<{
  entryExists: boolean;
  specMounts: boolean;
  deploymentClaims: boolean;
}> {
  const claim = `storage-${entry}`;
  const pvcs = await fleet.core.listNamespacedPersistentVolumeClaim({ namespace: 'default' });
  const live = pvcs.items.some((c) => c.metadata?.name === claim && !c.metadata.deletionTimestamp);
  const history = await fleet.core.listNamespacedSecret({
    namespace: SYSTEM_NAMESPACE,
    labelSelector: `longshore.dev/kind=index,longshore.dev/release=${claim}`,
  });
  const record = await fleet.core.readNamespacedSecret({
    name: appRecordName(app),
    namespace: SYSTEM_NAMESPACE,
  });
  const spec = toAppRecord(record, RAW_SPEC).spec as { mounts?: { entry: string }[] } | undefined;
  const deployment: k8s.V1Deployment = await fleet.apps.readNamespacedDeployment({
    name: `${app}-web`,
    namespace: 'default',
  });
  return {
    entryExists: live || history.items.length > 0,
    specMounts: (spec?.mounts ?? []).some((m) => m.entry === entry),
    deploymentClaims: (deployment.spec?.template.spec?.volumes ?? []).some(
      (v) => v.persistentVolumeClaim?.claimName === claim,
    ),
  };
}

function mount(app: string, entry: string) {
  const mountPath = `/mnt/${entry}`;
  return jobs.enqueue('mounts', { app, action: 'mount', mount: { entry, mountPath } }, 'test');
}

function destroy(entry: string) {
  return jobs.enqueue('storage-destroy', { name: entry }, 'test');
}

/** The invariant: an entry that is gone is mounted by no saved spec and claimed by no Deployment. */
function expectConsistent(state: Awaited<ReturnType<typeof endState>>, what: string): void {
  if (state.entryExists) return;
  expect(state.specMounts, `${what}: a destroyed entry is still mounted in the saved spec`).toBe(false);
  expect(state.deploymentClaims, `${what}: the app's Deployment claims a destroyed entry`).toBe(false);
}

describe('storage:mount and storage:destroy of one entry, enqueued together', () => {
  it('mount first: the destroy waits for it, then refuses naming the app', async () => {
    const [app, entry] = ['shop', 'first-mount'];
    await deployApp(app);
    await fleet.ok(['storage:create', entry, '--size', '1Gi', '--wait']);
    // The mount's Deployment write is slow (its checks are done by then), and the destroy's claim
    // deletion a little: run side by side, the destroy would find no mount and finish first.
    fleet.sim.faults.add({
      verb: 'patch',
      resource: 'apps/deployments',
      namespace: 'default',
      name: `${app}-web`,
      latencyMs: 3_000,
      limit: 1,
    });
    fleet.sim.faults.add({
      verb: 'delete',
      resource: '/persistentvolumeclaims',
      name: `storage-${entry}`,
      latencyMs: 1_000,
      limit: 1,
    });
    const mounted = await mount(app, entry);
    const destroyed = await destroy(entry);
    const [m, d] = await Promise.all([ended(mounted.id), ended(destroyed.id)]);
    fleet.sim.faults.clear();

    const state = await endState(app, entry);
    expectConsistent(state, entry);
    expect(m, 'the mount').toEqual({ state: 'completed', reason: '' });
    expect(d).toEqual({
      state: 'failed',
      reason: `storage entry ${entry} is mounted by ${app} (/mnt/${entry}); unmount it first`,
    });
    expect(state).toEqual({ entryExists: true, specMounts: true, deploymentClaims: true });

    // As an operator would go on: unmount, then the destroy goes through.
    await fleet.ok(['storage:unmount', app, `${entry}:/mnt/${entry}`, '--wait']);
    await fleet.ok(['storage:destroy', entry, '--wait']);
    expect(await endState(app, entry)).toEqual({
      entryExists: false,
      specMounts: false,
      deploymentClaims: false,
    });
  });

  it('destroy first: the mount waits for it, then refuses the entry that no longer exists', async () => {
    const [app, entry] = ['blog', 'first-destroy'];
    await deployApp(app);
    await fleet.ok(['storage:create', entry, '--size', '1Gi', '--wait']);
    // The destroy has checked that nothing mounts the entry; marking its release `uninstalling` is
    // slow: run side by side, the mount would still find the entry deployed and mount its claim.
    fleet.sim.faults.add({
      resource: '/secrets',
      namespace: SYSTEM_NAMESPACE,
      name: indexName(`storage-${entry}`, 1),
      latencyMs: 3_000,
      limit: 1,
    });
    const destroyed = await destroy(entry);
    const mounted = await mount(app, entry);
    const [d, m] = await Promise.all([ended(destroyed.id), ended(mounted.id)]);
    fleet.sim.faults.clear();

    const state = await endState(app, entry);
    expectConsistent(state, entry);
    expect(d, 'the destroy').toEqual({ state: 'completed', reason: '' });
    expect(m.state, `the mount: ${m.reason}`).toBe('failed');
    expect(m.reason).toMatch(`storage entry ${entry} does not exist`);
    expect(state).toEqual({ entryExists: false, specMounts: false, deploymentClaims: false });
  });

  it('several entries of one app, both orders at once, no faults: the first enqueued wins, every end state is consistent', async () => {
    const app = 'maps';
    await deployApp(app);
    const entries = ['race-a', 'race-b', 'race-c', 'race-d'];
    for (const entry of entries) await fleet.ok(['storage:create', entry, '--size', '1Gi', '--wait']);
    const cases: { entry: string; first: 'mount' | 'destroy'; mount: string; destroy: string }[] = [];
    for (const [i, entry] of entries.entries()) {
      if (i % 2 === 0) {
        const m = await mount(app, entry);
        cases.push({ entry, first: 'mount', mount: m.id, destroy: (await destroy(entry)).id });
      } else {
        const d = await destroy(entry);
        cases.push({ entry, first: 'destroy', destroy: d.id, mount: (await mount(app, entry)).id });
      }
    }
    for (const { entry, first, mount: m, destroy: d } of cases) {
      const [mounted, destroyed] = await Promise.all([ended(m), ended(d)]);
      const state = await endState(app, entry);
      expectConsistent(state, entry);
      // Exactly one of the two went through: the one enqueued first.
      expect(
        { mount: mounted.state, destroy: destroyed.state },
        `${entry}: ${mounted.reason} ${destroyed.reason}`,
      ).toEqual(
        first === 'mount'
          ? { mount: 'completed', destroy: 'failed' }
          : { mount: 'failed', destroy: 'completed' },
      );
      expect(state.entryExists, entry).toBe(first === 'mount');
    }
  });
});
