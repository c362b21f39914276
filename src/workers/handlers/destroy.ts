/**
 * `destroy`: deletes the app's run Jobs (src/workers/destroy/run-jobs.ts says why), uninstalls
 * every release of the app (src/workers/destroy/app-releases.ts), the app
 * release first with its workloads deleted in the foreground (pods before their Deployment or
 * CronJob, and the job waits until they are gone), then deletes the app record — garbage
 * collection removes any release storage Secret still owned by it — and, with `--with-storage`,
 * enqueues a storage-destroy job for each entry the app mounted. The namespace is left alone: it
 * may be shared (`default`) and still holds the storage entries' claims.
 *
 * Resumable: each step is a no-op once done (an uninstalled release has no history; a missing
 * record is not an error), and the plan written before the first write (destroy/plan.ts) tells a
 * retry that it is finishing its own work. So repeating a destroy, or destroying an app that is
 * half gone, succeeds and says what was left to remove. An app with no record and no release fails
 * with `app X does not exist` — unless the app's last successful change was a destroy (a repeat).
 */
import { PermanentError } from '../../core/errors.ts';
import { laneId } from '../../jobs/lane.ts';
import type { DestroyPayload } from '../../jobs/schemas/destroy.ts';
import { readLaneStatus } from '../../jobs/status.ts';
import type { Cluster } from '../cluster.ts';
import { appReleases } from '../destroy/app-releases.ts';
import { type DestroyPlan, readPlan, savePlan } from '../destroy/plan.ts';
import { deleteRunJobs } from '../destroy/run-jobs.ts';
import { uninstallReleases } from '../destroy/uninstall-releases.ts';
import type { Handler, HandlerContext } from '../handler.ts';

export const destroyHandler: Handler<DestroyPayload> = async (ctx) => {
  const { app } = ctx.payload;
  const { redis } = ctx.services;
  const cluster = await ctx.services.cluster();
  const releases = appReleases(cluster.history, app);
  const record = cluster.apps.get(app);
  let plan = await readPlan(redis, ctx.job.id);
  if (!plan) {
    if (!record && releases.length === 0) {
      const status = await readLaneStatus(redis, laneId({ kind: 'app', name: app }));
      if (status?.lastChangeType !== 'destroy') throw new PermanentError(`app ${app} does not exist`);
    }
    plan = { storage: storageToDestroy(ctx, record), enqueued: [] };
    await savePlan(redis, ctx.job.id, plan);
  }

  await ctx.step(`Destroying ${app}`);
  // Run Jobs first: once the config release is gone a run pod not yet started could never start.
  const runs = await deleteRunJobs(cluster, app, ctx.signal);
  for (const run of runs) await ctx.log(`deleted run Job ${run}`);
  const removed = await uninstallReleases(ctx, cluster, releases);
  removed.sort();
  if (runs.length > 0) removed.push(`${runs.length} run Job${runs.length === 1 ? '' : 's'}`);
  if (record) {
    await cluster.apps.delete(app);
    removed.push('the app record');
    await ctx.log(`deleted the app record of ${app}`);
  }
  await enqueueStorageDestroys(ctx, plan);
  ctx.report({ destroyed: true });

  const summary = removed.length === 0 ? `nothing left of ${app}` : `removed: ${removed.join(', ')}`;
  return { summary, removed };
};

/** With --with-storage, the entries the saved spec mounts; refused when that spec cannot be read. */
function storageToDestroy(
  ctx: HandlerContext<DestroyPayload>,
  record: ReturnType<Cluster['apps']['get']>,
): string[] {
  if (!ctx.payload.withStorage) return [];
  if (record?.unreadableSpec !== undefined)
    throw new PermanentError(
      `withStorage: the saved spec of app ${ctx.payload.app} cannot be read (${record.unreadableSpec}), ` +
        'so its storage mounts are unknown; destroy without --with-storage, then each entry with storage:destroy',
    );
  return [...new Set((record?.spec?.mounts ?? []).map((m) => m.entry))].sort();
}

/**
 * After the app is gone (so no spec mounts them any more), one storage-destroy job per entry, in
 * the entry's lane. Each is noted in the plan once enqueued; a crash between the two enqueues it
 * again on the retry, which the storage handler treats as a repeat.
 */
async function enqueueStorageDestroys(ctx: HandlerContext<DestroyPayload>, plan: DestroyPlan): Promise<void> {
  for (const entry of plan.storage) {
    if (plan.enqueued.includes(entry)) continue;
    const job = await ctx.services.jobs.enqueue('storage-destroy', { name: entry }, `destroy:${ctx.job.id}`);
    plan.enqueued.push(entry);
    await savePlan(ctx.services.redis, ctx.job.id, plan);
    await ctx.log(`enqueued storage-destroy ${entry} (${job.id})`);
  }
}
