/**
 * Issue 13, prune: the planted leaks — a leaked pull secret, an orphan chunk older than the grace,
 * history over the cap, the release of a deleted app and a record no release belongs to — are
 * exactly what `prune` removes, compared over kube-sim's full object list before and after;
 * unlabelled look-alikes stay; `--dry-run` lists the same and writes nothing; a second prune finds
 * nothing. CLI → Redis → worker process → kube-sim over HTTP.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRecordName, indexName } from '../../src/storage/names.ts';
import { type DeployFleet, startDeployFleet } from '../helpers/deploy-fleet.ts';
import { until } from '../helpers/wait.ts';

const SYSTEM = 'longshore-system';
const MANAGED = { 'app.kubernetes.io/managed-by': 'longshore' };
/**
 * Objects the controllers churn (a rollout's ReplicaSets and Pods, and the Endpoints and
 * EndpointSlices that follow the Pods' readiness), left out of the comparison.
 */
const CHURN = [
  '/pods',
  '/events',
  '/endpoints',
  'apps/replicasets',
  'discovery.k8s.io/endpointslices',
  'events.k8s.io/events',
  'coordination.k8s.io/leases',
];

let fleet: DeployFleet;

beforeAll(async () => {
  fleet = await startDeployFleet();
  // The orphan grace (10 minutes by default) would keep a chunk planted a second ago.
  await fleet.startWorker({ LONGSHORE_ORPHAN_GRACE_MS: '0' });
});

afterAll(async () => {
  await fleet?.stop();
});

/** Every object kube-sim holds, by `{group}/{plural}/{namespace}/{name}`, with its resourceVersion. */
async function objects(): Promise<Map<string, string>> {
  await fleet.sim.settle();
  const all = new Map<string, string>();
  for (const { typeKey, object } of fleet.sim.store.dump()) {
    if (CHURN.includes(typeKey)) continue;
    all.set(
      `${typeKey}/${object.metadata.namespace ?? ''}/${object.metadata.name}`,
      object.metadata.resourceVersion ?? '',
    );
  }
  return all;
}

const added = (before: Map<string, string>, after: Map<string, string>) =>
  [...after.keys()].filter((k) => !before.has(k)).sort();
const secretKey = (name: string) => `/secrets/${SYSTEM}/${name}`;

const content = (n: number) => ({ chart: { name: 'planted', version: '1.0.0' }, values: { n }, objects: [] });

describe('prune', () => {
  it('removes exactly the planted leaks, lists them first with --dry-run, and finds nothing the second time', async () => {
    const app = 'keep';
    const procfile = fleet.file(`${app}.Procfile`, 'web: nginx -g "daemon off;"\n');
    await fleet.ok(['deploy', app, '--image', 'nginx:1.27', '--procfile', procfile, '--wait']);
    const store = await fleet.store();
    const deployed = await objects();

    // 1. A leaked pull secret: another field manager extends the Deployment's list.
    await fleet.apps.patchNamespacedDeployment(
      {
        name: `${app}-web`,
        namespace: 'default',
        fieldManager: 'kubectl-patch',
        body: { spec: { template: { spec: { imagePullSecrets: [{ name: 'leaked-1' }] } } } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );

    // 2. History over the cap (10): a release of the app with 12 revisions, the last deployed.
    // What each revision added (its index and its own chunk: the values differ).
    const revisionSecrets: string[][] = [];
    for (let n = 1; n <= 12; n++) {
      const mark = await objects();
      await store.create({
        app,
        release: `${app}-old`,
        revision: n,
        status: n === 12 ? 'deployed' : 'superseded',
        content: content(n),
        description: `planted ${n}`,
      });
      revisionSecrets.push(added(mark, await objects()));
    }
    const overCap = [...revisionSecrets[0]!, ...revisionSecrets[1]!];
    expect(overCap).toContain(secretKey(indexName(`${app}-old`, 1)));
    expect(overCap).toContain(secretKey(indexName(`${app}-old`, 2)));
    expect(overCap).toHaveLength(4);

    // 3. A release whose app record is gone (deleted, its dependents orphaned: GC lag).
    const mark = await objects();
    await store.create({
      app: 'ghost',
      release: 'ghost',
      revision: 1,
      status: 'deployed',
      content: content(0),
      description: 'planted',
    });
    await fleet.core.deleteNamespacedSecret({
      name: appRecordName('ghost'),
      namespace: SYSTEM,
      propagationPolicy: 'Orphan',
    });
    const ghost = added(mark, await objects());
    expect(ghost).toContain(secretKey(indexName('ghost', 1)));
    expect(ghost).not.toContain(secretKey(appRecordName('ghost')));

    // 4. An app record no release belongs to.
    await store.apps.ensure('empty');

    // 5. An orphan chunk: labelled as one, referenced by no index.
    const orphan = 'longshore.chunk.keep.orphan-planted';
    const chunkLabels = {
      ...MANAGED,
      'longshore.dev/kind': 'chunk',
      'longshore.dev/app': app,
      'longshore.dev/release': app,
    };
    await fleet.core.createNamespacedSecret({
      namespace: SYSTEM,
      body: { metadata: { name: orphan, labels: chunkLabels }, type: 'longshore.dev/chunk.v1', data: {} },
    });

    // Look-alikes without the managed-by label, which prune must never touch.
    const { 'app.kubernetes.io/managed-by': _, ...unmanagedChunk } = chunkLabels;
    await fleet.core.createNamespacedSecret({
      namespace: SYSTEM,
      body: { metadata: { name: 'lookalike-chunk', labels: unmanagedChunk }, data: {} },
    });
    await fleet.core.createNamespacedSecret({
      namespace: SYSTEM,
      body: {
        metadata: {
          name: 'lookalike-record',
          labels: { 'longshore.dev/kind': 'app', 'longshore.dev/app': 'lookalike' },
        },
        data: {},
      },
    });
    await fleet.apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'lookalike-web', labels: { 'app.kubernetes.io/part-of': app } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { lookalike: 'web' } },
          template: {
            metadata: { labels: { lookalike: 'web' } },
            spec: { imagePullSecrets: [{ name: 'leaked-1' }], containers: [{ name: 'web', image: 'nginx' }] },
          },
        },
      },
    });

    const before = await objects();
    const planted = added(deployed, before);
    const expectedGone = [...overCap, ...ghost, secretKey(appRecordName('empty')), secretKey(orphan)].sort();
    for (const key of expectedGone) expect(planted).toContain(key);

    // One app: only what is the app's (its chunk is labelled with it); the other apps' are not listed.
    const one = await fleet.ok(['prune', app, '--dry-run', '--wait']);
    expect(one).toMatch(/would remove leaked .* of apps\/v1 Deployment default\/keep-web/);
    expect(one).toMatch(/would remove revision 2 of release keep-old/);
    expect(one).toMatch(new RegExp(`would remove orphan chunk Secret ${orphan.replaceAll('.', '\\.')}`));
    expect(one).not.toMatch(/ghost|empty/);
    expect(one).toMatch(/would remove 4 item\(s\) \(keep\)/);

    // --dry-run: every planted leak listed, nothing written.
    const dry = await fleet.ok(['prune', '--dry-run', '--wait']);
    expect(dry).toMatch(
      /would remove leaked spec\.template\.spec\.imagePullSecrets \(not applied by longshore: leaked-1\) of apps\/v1 Deployment default\/keep-web/,
    );
    expect(dry).toMatch(
      /would remove revision 1 of release keep-old \(superseded; history over the cap of 10\)/,
    );
    expect(dry).toMatch(/would remove revision 2 of release keep-old/);
    expect(dry).not.toMatch(/revision (3|12) of release keep-old/);
    expect(dry).toMatch(/would remove release ghost \(its app ghost has no app record\)/);
    expect(dry).toMatch(/would remove app record of empty \(no release of it is left\)/);
    expect(dry).toMatch(new RegExp(`would remove orphan chunk Secret ${orphan.replaceAll('.', '\\.')}`));
    expect(dry).not.toMatch(/lookalike/);
    expect(dry).not.toMatch(/^removed /m);
    expect(await objects()).toEqual(before);

    // The real prune: the same lines, and the leak's repair runs as a reconcile in the app's lane.
    const out = await fleet.ok(['prune', '--wait']);
    expect(out).toMatch(
      /removed leaked spec\.template\.spec\.imagePullSecrets .* of apps\/v1 Deployment default\/keep-web/,
    );
    expect(out).toMatch(/removed revision 1 of release keep-old/);
    expect(out).toMatch(/removed release ghost/);
    expect(out).toMatch(/removed app record of empty/);
    expect(out).toMatch(new RegExp(`removed orphan chunk Secret ${orphan.replaceAll('.', '\\.')}`));
    expect(out).toMatch(/reconcile \S+ enqueued: it removes the leaked pull secrets of keep/);
    const pullSecrets = async (name: string) =>
      (
        (await fleet.apps.readNamespacedDeployment({ name, namespace: 'default' })).spec?.template.spec
          ?.imagePullSecrets ?? []
      ).map((s) => s.name);
    await until(async () => (await pullSecrets(`${app}-web`)).length === 0 || undefined, 'the leak repaired');
    // The garbage collector removes what the deleted record `empty` owned (nothing) and the
    // ghost's chunks went with its release.
    await until(async () => {
      const now = await objects();
      return expectedGone.every((k) => !now.has(k)) || undefined;
    }, 'the pruned Secrets to be gone');

    // The reconcile's rollout of the repaired template waits on the clock (pods becoming ready, the
    // old pod's graceful termination), which settle() does not wait for: the Deployment's status
    // would still move after `after` is taken.
    await until(async () => {
      const d = await fleet.apps.readNamespacedDeployment({ name: `${app}-web`, namespace: 'default' });
      const want = d.spec?.replicas ?? 1;
      const s = d.status;
      const pods = await fleet.core.listNamespacedPod({
        namespace: 'default',
        labelSelector: `app.kubernetes.io/part-of=${app}`,
      });
      return (
        ((s?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
          s?.replicas === want &&
          s?.updatedReplicas === want &&
          s?.readyReplicas === want &&
          s?.availableReplicas === want &&
          pods.items.length === want &&
          pods.items.every((p) => !p.metadata?.deletionTimestamp) &&
          (s?.conditions ?? []).some(
            (c) => c.type === 'Progressing' && c.reason === 'NewReplicaSetAvailable',
          )) ||
        undefined
      );
    }, 'the repaired template rolled out');

    const after = await objects();
    expect(added(after, before)).toEqual(expectedGone);
    expect(added(before, after)).toEqual([]);
    expect(await pullSecrets('lookalike-web')).toEqual(['leaked-1']);
    expect(store.history(`${app}-old`).map((r) => r.revision)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const web = await fleet.apps.readNamespacedDeployment({ name: `${app}-web`, namespace: 'default' });
    expect(web.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.27');

    // Idempotent: nothing is left to prune.
    const again = await fleet.ok(['prune', '--wait']);
    expect(again).toMatch(/nothing to prune \(every app\)/);
    expect(await objects()).toEqual(after);
  });
});

describe('prune of run Jobs', () => {
  let jobsFleet: DeployFleet;

  beforeAll(async () => {
    // Without the workload controllers, kube-sim's own TTL-after-finished controller does not run:
    // the Jobs stay as planted, as on a cluster whose TTL controller is off or behind.
    jobsFleet = await startDeployFleet({ controllers: false });
    await jobsFleet.startWorker();
  });

  afterAll(async () => {
    await jobsFleet?.stop();
  });

  async function plantJob(
    name: string,
    labels: Record<string, string>,
    opts: { ttl?: number; finishedAgoMs?: number },
  ): Promise<void> {
    await jobsFleet.batch.createNamespacedJob({
      namespace: 'default',
      body: {
        metadata: { name, labels },
        spec: {
          ...(opts.ttl !== undefined ? { ttlSecondsAfterFinished: opts.ttl } : {}),
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'run', image: 'busybox' }] } },
        },
      },
    });
    if (opts.finishedAgoMs === undefined) return;
    const at = new Date(Date.now() - opts.finishedAgoMs);
    await jobsFleet.batch.patchNamespacedJobStatus(
      {
        name,
        namespace: 'default',
        body: {
          status: {
            startTime: at,
            completionTime: at,
            succeeded: 1,
            conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: at }],
          },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  }

  it('deletes the finished run Jobs past their TTL, and only those', async () => {
    const run = { ...MANAGED, 'longshore.dev/job': 'run', 'app.kubernetes.io/part-of': 'web' };
    const hour = 3_600_000;
    await plantJob('web-run-expired', run, { ttl: 60, finishedAgoMs: hour });
    await plantJob('web-run-young', run, { ttl: 7200, finishedAgoMs: hour });
    await plantJob('web-run-no-ttl', run, { finishedAgoMs: hour });
    await plantJob('web-run-running', run, { ttl: 60 });
    const { 'app.kubernetes.io/managed-by': _, ...unmanaged } = run;
    await plantJob('lookalike-run', unmanaged, { ttl: 60, finishedAgoMs: hour });
    const names = async () =>
      (await jobsFleet.batch.listNamespacedJob({ namespace: 'default' })).items
        .map((j) => j.metadata?.name ?? '')
        .sort();
    const before = await names();
    expect(before).toHaveLength(5);

    const dry = await jobsFleet.ok(['prune', 'web', '--dry-run', '--wait']);
    expect(dry).toMatch(
      /would remove batch\/v1 Job default\/web-run-expired \(a finished run Job past its TTL\)/,
    );
    expect(dry).toMatch(/would remove 1 item\(s\) \(web\)/);
    expect(await names()).toEqual(before);

    const out = await jobsFleet.ok(['prune', '--wait']);
    expect(out).toMatch(/removed batch\/v1 Job default\/web-run-expired/);
    expect(out).toMatch(/removed 1 item\(s\) \(every app\)/);
    await until(
      async () => !(await names()).includes('web-run-expired') || undefined,
      'the expired Job deleted',
    );
    expect(await names()).toEqual(before.filter((n) => n !== 'web-run-expired'));
    expect(await jobsFleet.ok(['prune', '--wait'])).toMatch(/nothing to prune/);
  });
});
