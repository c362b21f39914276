/**
 * `prune [APP] [--dry-run]`: removes what the fleet's other paths leak, for one app (in its lane)
 * or all (in the fleet lane; also enqueued daily by the scheduler). Each step names what it
 * removes in the job's log and in the result's `removed`; with `dryRun` nothing is written and
 * the same lines say "would remove". Only objects carrying longshore's managed-by label are ever
 * touched. The steps, their rules and what a crash leaves: docs/apps.md, "prune".
 *
 * 1. leaked `imagePullSecrets` on the app's workloads: detected as the engine does
 *    (pull-secret-leaks.ts) and repaired by a `reconcile` enqueued in the app's lane, so the fix
 *    goes through the engine and never races a deploy of that app;
 * 2. release history over the cap (never the last deployed revision);
 * 3. releases whose app record is gone, and app records with no release left (prune/plan.ts);
 * 4. finished run Jobs past their `ttlSecondsAfterFinished`;
 * 5. orphan chunks older than the grace (LONGSHORE_ORPHAN_GRACE_MS).
 * Every step re-reads what is there, so a retry after a crash redoes only what is left.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { PrunePayload } from '../../jobs/schemas/prune.ts';
import { isNotFound } from '../../kube/errors.ts';
import { describeRef, refOf } from '../../releases/objects.ts';
import { describeLeak, findPullSecretLeak, hasPodTemplate } from '../../releases/pull-secret-leaks.ts';
import { revisionsOverCap, STORE_DEFAULTS } from '../../storage/index.ts';
import { appRecordName } from '../../storage/names.ts';
import type { Cluster } from '../cluster.ts';
import type { Handler, HandlerContext } from '../handler.ts';
import { expiredRunJobs, goneApps, isManaged } from '../prune/plan.ts';

type Ctx = HandlerContext<PrunePayload>;

export const pruneHandler: Handler<PrunePayload> = async (ctx) => {
  const { app, dryRun } = ctx.payload;
  const cluster = await ctx.services.cluster();
  const removed: string[] = [];
  const note = async (what: string) => {
    removed.push(what);
    await ctx.log(`${dryRun ? 'would remove' : 'removed'} ${what}`);
  };
  const step = async (name: string, run: () => Promise<void>) => {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    await ctx.progress({ step: name });
    await run();
  };

  await step('pull-secrets', () => leakedPullSecrets(ctx, cluster, note));
  await step('history', () => historyOverCap(ctx, cluster, note));
  await step('gone-apps', () => appsThatAreGone(ctx, cluster, note));
  await step('run-jobs', () => finishedRunJobs(ctx, cluster, note));
  await step('orphan-chunks', async () => {
    const chunks: string[] = [];
    await cluster.sweepOrphans({
      ...(app !== undefined ? { app } : {}),
      dryRun,
      onOrphan: (chunk) => chunks.push(chunk),
    });
    for (const chunk of chunks) await note(`orphan chunk Secret ${chunk} (no revision references it)`);
  });

  const scope = app ?? 'every app';
  const summary =
    removed.length === 0
      ? `nothing to prune (${scope})`
      : `${dryRun ? 'would remove' : 'removed'} ${removed.length} item(s) (${scope})`;
  await ctx.log(summary);
  return { summary, removed, dryRun };
};

type Note = (what: string) => Promise<void>;

/** The apps in scope: the one asked for, or every app with a record. */
function appsInScope(ctx: Ctx, cluster: Cluster): string[] {
  if (ctx.payload.app !== undefined) return cluster.apps.get(ctx.payload.app) ? [ctx.payload.app] : [];
  return cluster.apps.list().map((r) => r.app);
}

async function leakedPullSecrets(ctx: Ctx, cluster: Cluster, note: Note): Promise<void> {
  for (const app of appsInScope(ctx, cluster)) {
    let leaks = 0;
    for (const release of cluster.history.releases(app)) {
      const deployed = cluster.history.deployed(release);
      if (!deployed || deployed.unreadable) continue;
      const content = await cluster.history.read(release, deployed.revision);
      const workloads = content.objects.filter((o) => hasPodTemplate(o.kind));
      const observed = await cluster.engine.observe(release, workloads, ctx.signal);
      for (const [i, { ref, live }] of observed.entries()) {
        if (!live || !isManaged(live)) continue;
        const leak = findPullSecretLeak(workloads[i]!, live);
        if (!leak) continue;
        leaks++;
        await note(`leaked ${describeLeak(leak)} of ${describeRef(ref)}`);
      }
    }
    if (leaks === 0 || ctx.payload.dryRun) continue;
    // The engine repairs leaks as drift, with one template change; the reconcile runs it in the
    // app's lane, after this job when this job is in that lane too.
    const job = await ctx.services.jobs.enqueue('reconcile', { app }, `prune:${ctx.job.id}`);
    await ctx.log(`reconcile ${job.id} enqueued: it removes the leaked pull secrets of ${app}`);
  }
}

async function historyOverCap(ctx: Ctx, cluster: Cluster, note: Note): Promise<void> {
  const cap = STORE_DEFAULTS.historyMax;
  for (const app of appsInScope(ctx, cluster)) {
    for (const release of cluster.history.releases(app)) {
      const history = cluster.history.history(release).map((info) => ({ info }));
      const doomed = revisionsOverCap(history, cap).map((r) => r.info);
      if (doomed.length === 0) continue;
      for (const r of doomed)
        await note(
          `revision ${r.revision} of release ${release} (${r.status}; history over the cap of ${cap})`,
        );
      if (!ctx.payload.dryRun) await cluster.history.prune(release, cap);
    }
  }
}

async function appsThatAreGone(ctx: Ctx, cluster: Cluster, note: Note): Promise<void> {
  const gone = goneApps({
    records: cluster.apps.list(),
    releases: cluster.history.releases().map((release) => ({ release, last: cluster.history.last(release) })),
    nowMs: Date.now(),
    graceMs: ctx.services.config.orphanGraceMs,
    ...(ctx.payload.app !== undefined ? { app: ctx.payload.app } : {}),
  });
  for (const { release, app } of gone.releases) {
    // The two caches (indexes, records) are separate informers: a record another worker just
    // created may not be in ours yet. Only the API server's word that it is gone counts.
    if (await recordExists(cluster, ctx.services.config.namespace, app)) continue;
    await note(`release ${release} (its app ${app} has no app record)`);
    if (!ctx.payload.dryRun) await cluster.history.deleteRelease(release);
  }
  for (const app of gone.records) {
    await note(`app record of ${app} (no release of it is left)`);
    if (!ctx.payload.dryRun) await cluster.apps.delete(app);
  }
}

async function recordExists(cluster: Cluster, namespace: string, app: string): Promise<boolean> {
  try {
    await cluster.kube.core.readNamespacedSecret({ name: appRecordName(app), namespace });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

async function finishedRunJobs(ctx: Ctx, cluster: Cluster, note: Note): Promise<void> {
  const jobs = (await cluster.engine.managedEverywhere('batch/v1', 'Job', ctx.signal)) as KubernetesObject[];
  for (const job of expiredRunJobs(jobs, Date.now(), ctx.payload.app)) {
    const ref = refOf({
      apiVersion: 'batch/v1',
      kind: 'Job',
      name: job.metadata?.name ?? '',
      ...(job.metadata?.namespace ? { namespace: job.metadata.namespace } : {}),
    });
    await note(`${describeRef(ref)} (a finished run Job past its TTL)`);
    if (ctx.payload.dryRun) continue;
    try {
      await cluster.kube.objects.delete(
        { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: ref.name, namespace: ref.namespace ?? '' } },
        undefined,
        undefined,
        undefined,
        undefined,
        'Background',
      );
    } catch (err) {
      if (!isNotFound(err)) throw err; // already gone: another prune, or the TTL controller
    }
  }
}
