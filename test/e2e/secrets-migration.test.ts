/**
 * The migration of history written before Secret values were redacted (issue 11, case 9): a
 * storage holding `config-{app}` and `pull-secret-{app}` revisions with values in their chunks (as
 * the engine wrote them until now: written here with the store, values in clear, no marker), then
 * a worker process that connects to the cluster. Through real processes: CLI → Redis → worker →
 * kube-sim over HTTP.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configChart, pullSecretChart } from '../../charts/index.ts';
import { WRITE_VERBS } from '../../infra/kube-sim/server/request-log.ts';
import { emptySpec } from '../../src/apps/spec.ts';
import { withReleaseLabels } from '../../src/releases/objects.ts';
import type { ReleaseObject, SecretReleaseStore } from '../../src/storage/index.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { valuesFoundIn } from '../helpers/stored-secrets.ts';

const SYSTEM = 'longshore-system';
const OLD_VALUES = ['legacy-value-one', 'legacy-value-two', 'legacy-registry-pass'];
let fleet: DeployFleet;
let store: SecretReleaseStore;

beforeAll(async () => {
  fleet = await startDeployFleet();
  store = await fleet.store();
});

afterAll(async () => {
  await fleet?.stop();
});

/** An object as the engine stored and applied it: the chart's, with the engine's labels. */
function asApplied(object: unknown, release: string): ReleaseObject {
  return withReleaseLabels(object as ReleaseObject, release);
}

async function writeOldHistory(): Promise<void> {
  const configOf = (value: string) =>
    asApplied(
      configChart.render({ app: 'legacy', namespace: 'default', env: { K: value } })[0],
      'config-legacy',
    );
  const values = { app: 'legacy', namespace: 'default', keys: ['K'] };
  const chart = { name: configChart.name, version: configChart.version };
  await store.create({
    app: 'legacy',
    release: 'config-legacy',
    revision: 1,
    status: 'superseded',
    content: { chart, values, objects: [configOf('legacy-value-one')] },
    description: 'Install complete',
    holder: 'app.legacy.1',
  });
  const deployed = configOf('legacy-value-two');
  await store.create({
    app: 'legacy',
    release: 'config-legacy',
    revision: 2,
    status: 'deployed',
    content: { chart, values, objects: [deployed] },
    description: 'Upgrade complete',
    holder: 'app.legacy.2',
  });
  const pull = asApplied(
    pullSecretChart.render({
      app: 'legacy',
      namespace: 'default',
      server: 'registry.example.com',
      username: 'deployer',
      password: 'legacy-registry-pass',
    })[0],
    'pull-secret-legacy',
  );
  await store.create({
    app: 'legacy',
    release: 'pull-secret-legacy',
    revision: 1,
    status: 'deployed',
    content: {
      chart: { name: pullSecretChart.name, version: pullSecretChart.version },
      values: { app: 'legacy', namespace: 'default', server: 'registry.example.com', username: 'deployer' },
      objects: [pull],
    },
    description: 'Install complete',
    holder: 'app.legacy.1',
  });
  // The spec the jobs saved, and the live Secrets, as those revisions applied them.
  await store.apps.saveSpec('legacy', {
    ...emptySpec('legacy'),
    registry: { server: 'registry.example.com', username: 'deployer' },
  });
  for (const object of [deployed, pull])
    await fleet.core.createNamespacedSecret({ namespace: 'default', body: object as never });
}

it('rewrites old history without values when a worker connects, and the deployed revisions still read', async () => {
  await writeOldHistory();
  expect((await valuesFoundIn(fleet.core, SYSTEM, OLD_VALUES)).length).toBeGreaterThan(0);
  const before = store.history('config-legacy').map((r) => [r.revision, r.status, r.description, r.holder]);

  await fleet.startWorker();
  // Any job that needs the cluster connects the worker; this one is for another app.
  await fleet.cli(['config:set', 'other', 'Z=1', '--wait']);

  expect(await valuesFoundIn(fleet.core, SYSTEM, OLD_VALUES)).toEqual([]);
  // Revision numbers, statuses, descriptions and holders are as they were.
  expect(store.history('config-legacy').map((r) => [r.revision, r.status, r.description, r.holder])).toEqual(
    before,
  );
  expect(store.history('config-legacy').every((r) => r.redacted)).toBe(true);
  const content = await store.read('config-legacy', 2);
  expect(content.values).toEqual({ app: 'legacy', namespace: 'default', keys: ['K'] });
  expect(Object.keys((content.objects[0] as { redactedData?: object }).redactedData ?? {})).toEqual(['K']);
  await store.read('config-legacy', 1);
  await store.read('pull-secret-legacy', 1);

  // The migrated revisions are what the worker renders now: a reconcile finds nothing to do.
  const start = fleet.sim.requests.entries().length;
  const out = await fleet.cli(['jobs:enqueue', 'reconcile', '--payload', '{"app":"legacy"}', '--wait']);
  expect(out.code, out.stderr).toBe(0);
  expect(out.stdout).toMatch(/config-legacy: unchanged \(revision 2\)/);
  expect(out.stdout).toMatch(/pull-secret-legacy: unchanged \(revision 1\)/);
  const writes = fleet.sim.requests
    .entries()
    .slice(start)
    .filter((r) => WRITE_VERBS.includes(r.verb));
  expect(writes).toEqual([]);
  const live = await fleet.core.readNamespacedSecret({ name: 'config-legacy', namespace: 'default' });
  expect(Buffer.from(live.data?.K ?? '', 'base64').toString()).toBe('legacy-value-two');
});
