/**
 * `sync`: the scheduled heal. Enqueues a `reconcile` for every app the status projection knows
 * (not those whose last job destroyed them, nor names an app was renamed away from: their
 * reconcile would only fail with `app OLD was renamed to NEW`);
 * older queued reconciles of an app are superseded by the new one, so a slow fleet does not pile
 * them up.
 */
import { listLaneStatuses } from '../../jobs/status.ts';
import type { Handler } from '../handler.ts';

export const syncHandler: Handler<Record<string, never>> = async (ctx) => {
  const apps = (await listLaneStatuses(ctx.services.redis, 'app')).flatMap((s) =>
    s.name && !s.destroyed && !s.renamedTo ? [s.name] : [],
  );
  for (const app of apps) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    await ctx.services.jobs.enqueue('reconcile', { app }, `sync:${ctx.job.id}`);
  }
  await ctx.log(`enqueued a reconcile for ${apps.length} app(s)`);
  return { summary: `reconcile enqueued for ${apps.length} app(s)`, apps: apps.length };
};
