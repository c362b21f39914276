/**
 * What the rename e2e tests (test/e2e/rename*.test.ts) share: the app they rename (deployed with a
 * domain, a cron task, config, registry credentials and a storage mount, plus a leftover
 * `tls-{app}` release), and the end state every rename must reach, interrupted or not.
 */
import { expect } from 'vitest';
import { appLabels } from '../../charts/labels.ts';
import { Sealer } from '../../src/jobs/sealing.ts';
import { createReleaseEngine } from '../../src/releases/index.ts';
import type { SecretReleaseStore } from '../../src/storage/index.ts';
import type { ReleaseObject } from '../../src/storage/types.ts';
import type { DeployFleet } from './deploy-fleet.ts';
import { appObjects } from './sim.ts';
import { until } from './wait.ts';

const PROCFILE = 'web: bundle exec puma -p 5000\n';
const APP_JSON = JSON.stringify({ cron: [{ command: 'bin/rake cleanup', schedule: '@daily' }] });

/** The storage entry every renamed app mounts (created once per fleet by `createStorage`). */
export const STORAGE_ENTRY = 'files';

export interface AppRow {
  name: string;
  revision?: number;
  image?: string;
  renamedTo?: string;
}

/** What an app looked like before its rename: its objects' shape and its pull secret. */
export interface BeforeRename {
  shape: string[];
  pull: string;
}

export function renameChecks(fleet: DeployFleet, store: SecretReleaseStore) {
  async function createStorage(): Promise<void> {
    await fleet.ok(['storage:create', STORAGE_ENTRY, '--size', '1Gi', '--host-path', '/srv/files', '--wait']);
  }

  /** The app deployed with a domain, config, a mount, a cron task and registry credentials. */
  async function deploy(app: string): Promise<void> {
    await fleet.ok(['domains:add', app, `${app}.example.com`, '--wait']);
    await fleet.ok(['config:set', app, 'GREETING=hi', '--wait']);
    await fleet.ok(['storage:mount', app, `${STORAGE_ENTRY}:/files`, '--wait']);
    await fleet.deployWithRegistry(app, `registry.example.com/${app}:1`, PROCFILE, APP_JSON);
  }

  /** A `tls-{app}` release as an older longshore left it: one Secret of the app's, in history. */
  async function plantTls(app: string): Promise<void> {
    const secretDigestKey = new Sealer(fleet.env.LONGSHORE_SECRET!).valueDigestKey();
    const engine = createReleaseEngine({ kube: fleet.kc, history: store, secretDigestKey });
    try {
      await engine.upgrade({
        app,
        release: `tls-${app}`,
        chart: { name: 'tls', version: '0.9.0' },
        values: {},
        objects: [
          {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: `tls-${app}`, namespace: 'default', labels: appLabels(app) },
            data: { 'tls.crt': Buffer.from('old').toString('base64') },
          } as ReleaseObject,
        ],
        holder: 'older-longshore',
        wait: false,
      });
    } finally {
      await engine.stop();
    }
    await until(
      () => (store.releases(app).includes(`tls-${app}`) ? true : undefined),
      `tls-${app} in history`,
    );
  }

  const objectsOf = (app: string) => appObjects(fleet.sim, app);

  /** The names of the app's objects, its own name replaced: what a rename must reproduce. */
  function shapeOf(app: string): string[] {
    return (
      objectsOf(app)
        .filter((o) => /^(Deployment|CronJob|Ingress|Service|ServiceAccount|Secret) default\//.test(o))
        .filter((o) => !o.startsWith('Secret default/tls-'))
        // The app's name starts each object's name; an Ingress name also holds its domain (carried
        // over as it was) and a hash of the whole.
        .map((o) => o.replace(new RegExp(`default/(config-|pull-secret-)?${app}`), 'default/$1APP'))
        .map((o) => (o.startsWith('Ingress ') ? o.replace(/-[0-9a-f]{8}$/, '-HASH') : o))
        .sort()
    );
  }

  async function secretData(name: string): Promise<Record<string, string>> {
    return (await fleet.core.readNamespacedSecret({ name, namespace: 'default' })).data ?? {};
  }

  /** What the app serves: the web container's image and env source, the CronJob, the domain, the mount. */
  async function served(app: string) {
    const web = await fleet.apps.readNamespacedDeployment({ name: `${app}-web`, namespace: 'default' });
    const container = web.spec?.template.spec?.containers[0];
    const cron = (
      await fleet.batch.listNamespacedCronJob({
        namespace: 'default',
        labelSelector: `app.kubernetes.io/part-of=${app}`,
      })
    ).items;
    const ingresses = (
      await fleet.networking.listNamespacedIngress({
        namespace: 'default',
        labelSelector: `app.kubernetes.io/part-of=${app}`,
      })
    ).items;
    return {
      image: container?.image,
      available: web.status?.availableReplicas,
      cron: cron.map((c) => c.metadata?.name?.replace(app, 'APP')),
      hosts: ingresses.flatMap((i) => (i.spec?.rules ?? []).map((r) => r.host)),
      claims: (web.spec?.template.spec?.volumes ?? []).map((v) => v.persistentVolumeClaim?.claimName),
      pullSecrets: (web.spec?.template.spec?.imagePullSecrets ?? []).map((s) => s.name?.replace(app, 'APP')),
    };
  }

  /** The app deployed (and its tls release planted) as the rename tests start from. */
  async function prepare(app: string): Promise<BeforeRename> {
    await deploy(app);
    await plantTls(app);
    return { shape: shapeOf(app), pull: (await secretData(`pull-secret-${app}`))['.dockerconfigjson']! };
  }

  /** The end state of `from` renamed to `to`: only new-name objects and releases, one revision each. */
  async function expectRenamed(from: string, to: string, before: BeforeRename): Promise<void> {
    await until(() => (objectsOf(from).length === 0 ? true : undefined), `everything of ${from} to be gone`, {
      timeoutMs: 30_000,
    });
    await until(() => (store.releases(from).length === 0 ? true : undefined), `${from} history to go`);
    expect(store.releases(to)).toEqual([`config-${to}`, `pull-secret-${to}`, to].sort());
    // One revision of each new release: nothing doubled.
    for (const release of store.releases(to))
      expect(store.history(release).map((r) => [r.revision, r.status])).toEqual([[1, 'deployed']]);
    expect(store.apps.get(from)).toBeUndefined();
    expect(store.apps.get(to)?.spec).toMatchObject({
      app: to,
      image: `registry.example.com/${from}:1`,
      domains: [`${from}.example.com`],
      mounts: [{ entry: STORAGE_ENTRY, mountPath: '/files' }],
    });
    expect(shapeOf(to)).toEqual(before.shape);
    expect(await served(to)).toEqual({
      image: `registry.example.com/${from}:1`,
      available: 1,
      cron: [expect.stringMatching(/^APP-cron-[a-z2-7]{8}$/)],
      hosts: [`${from}.example.com`],
      claims: [`storage-${STORAGE_ENTRY}`],
      pullSecrets: ['pull-secret-APP'],
    });
    expect(await secretData(`config-${to}`)).toEqual({ GREETING: Buffer.from('hi').toString('base64') });
    expect((await secretData(`pull-secret-${to}`))['.dockerconfigjson']).toBe(before.pull);
    // The storage entry is fleet-wide: it stays.
    expect(store.history(`storage-${STORAGE_ENTRY}`).length).toBeGreaterThan(0);

    const all = JSON.parse(await fleet.ok(['apps:list', '--all', '--json'])) as AppRow[];
    expect(all.find((a) => a.name === to)).toMatchObject({
      revision: 1,
      image: `registry.example.com/${from}:1`,
    });
    expect(all.find((a) => a.name === to)?.renamedTo).toBeUndefined();
    expect(all.find((a) => a.name === from)).toMatchObject({ renamedTo: to });
    expect(all.find((a) => a.name === from)?.revision).toBeUndefined();
    expect(await fleet.ok(['apps:list'])).not.toMatch(new RegExp(`^${from}\\s`, 'm'));
  }

  return { createStorage, deploy, plantTls, prepare, objectsOf, shapeOf, secretData, served, expectRenamed };
}
