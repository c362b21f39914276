/**
 * An app's namespace is read once per worker, not on every deploy (src/workers/deploy/
 * known-namespaces.ts): CLI → Redis → worker process → kube-sim over HTTP, counted in the
 * simulator's request log. A namespace deleted by hand is noticed by the next deploy's first
 * write into it; the job's retry creates it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotFound } from '../../../src/kube/errors.ts';
import { type DeployFleet, startDeployFleet } from '../../helpers/deploy-fleet.ts';
import { until } from '../../helpers/wait.ts';

let fleet: DeployFleet;
const APP = 'harbour';
const NAMESPACE = 'harbour-ns';

beforeAll(async () => {
  fleet = await startDeployFleet();
  await fleet.startWorker();
});

afterAll(async () => {
  await fleet?.stop();
});

const deploy = (tag = '1') =>
  fleet.ok([
    'deploy',
    APP,
    '--image',
    `registry.example.com/${APP}:${tag}`,
    '--procfile',
    fleet.file(`${APP}.Procfile`, 'web: bin/web\n'),
    '--wait',
  ]);

/**
 * The requests on the app's Namespace since request number `from`, as `verb status` (a create is
 * logged without a name: it is posted to the collection, and no other namespace is made meanwhile).
 */
const namespaceRequests = (from: number) =>
  fleet.sim.requests
    .entries()
    .slice(from)
    .filter((r) => r.resource === '/namespaces' && (r.name === NAMESPACE || r.verb === 'create'))
    .map((r) => `${r.verb} ${r.status}`);

/** Deletes the app's namespace as a person would, and waits until it is gone. */
async function deleteNamespace(): Promise<void> {
  await fleet.core.deleteNamespace({ name: NAMESPACE });
  await until(
    () =>
      fleet.core.readNamespace({ name: NAMESPACE }).then(
        () => undefined,
        (err: unknown) => (isNotFound(err) ? true : undefined),
      ),
    'the namespace to be gone',
  );
}

describe("the app's namespace", () => {
  it('is read or created once: an unchanged redeploy sends no Namespace request', async () => {
    await fleet.ok(['properties:set', APP, 'namespace', NAMESPACE, '--wait']);
    let from = fleet.sim.requests.entries().length;
    expect(await deploy()).toMatch(new RegExp(`namespace ${NAMESPACE}: created`));
    expect(namespaceRequests(from)).toEqual(['get 404', 'create 201']);

    from = fleet.sim.requests.entries().length;
    await deploy();
    await fleet.ok(['config:set', APP, 'GREETING=hello', '--wait']);
    expect(namespaceRequests(from), 'Namespace requests of a redeploy and a config change').toEqual([]);
  });

  it('deleted by hand, is created again by the next deploy (its retry)', async () => {
    await deleteNamespace();
    const from = fleet.sim.requests.entries().length;
    const out = await deploy();
    expect(out).toMatch(
      /attempt 1 failed \(transient, retry 1 of \d+\): namespace harbour-ns no longer exists .*the retry creates it again/,
    );
    expect(out).toMatch(/namespace harbour-ns: created/);
    // The worker still believed in it: no read first; the refused write made it forget, and the
    // retry read it (404) and created it.
    expect(namespaceRequests(from)).toEqual(['get 404', 'create 201']);
    const ns = await fleet.core.readNamespace({ name: NAMESPACE });
    expect(ns.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('longshore');
    const deployments = await fleet.apps.listNamespacedDeployment({ namespace: NAMESPACE });
    expect(deployments.items.map((d) => d.metadata?.name)).toContain(`${APP}-web`);
    // (config-harbour's value went with the namespace: the deploy says so, lost-secrets.ts.)
  });

  it('deleted by hand before a deploy that makes a new revision: that revision fails, the retry deploys', async () => {
    await deleteNamespace();
    const out = await deploy('2');
    expect(out).toMatch(/namespace harbour-ns no longer exists .*the retry creates it again/);
    expect(out).toMatch(/namespace harbour-ns: created/);
    const web = await fleet.apps.readNamespacedDeployment({ name: `${APP}-web`, namespace: NAMESPACE });
    expect(web.spec?.template.spec?.containers[0]?.image).toBe(`registry.example.com/${APP}:2`);
    // The first attempt's revision failed on the refused apply (history records what happened);
    // the retry's revision is the deployed one.
    const store = await fleet.store();
    await until(() => (store.deployed(APP)?.revision ?? 0) > 2 || undefined, 'the retry revision');
    expect(
      store
        .history(APP)
        .map((r) => r.status)
        .slice(-2),
    ).toEqual(['failed', 'deployed']);
  });
});
