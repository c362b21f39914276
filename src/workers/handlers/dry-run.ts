/**
 * `dry-run`: runs the handler of the job it stands for with `ctx.dryRun` set, so the deploy
 * pipeline plans every release instead of writing it (src/workers/deploy/dry-run.ts), and returns
 * the plans; nothing else of the inner handler's result (no revision, no image) reaches the status
 * projection. A destroy's dry run is the plan of its uninstalls: every live object of every release
 * the destroy would remove, as a delete, and the app record with them.
 */
import type { JobType } from '../../jobs/contract.ts';
import { contractFor } from '../../jobs/contracts.ts';
import type { DryRunPayload } from '../../jobs/schemas/dry-run.ts';
import type { ReleasePlan } from '../../releases/index.ts';
import { type DryRunResult, dryRunResult, planLine } from '../deploy/dry-run.ts';
import { appReleases } from '../destroy/app-releases.ts';
import type { Handler, HandlerContext } from '../handler.ts';

export function dryRunHandler(handlerOf: (type: JobType) => Handler<unknown>): Handler<DryRunPayload> {
  return async (ctx) => {
    const { type, payload } = ctx.payload;
    if (type === 'destroy') return destroyPlan(ctx, (payload as { app: string }).app);
    // The job's context with the inner payload; its getters (signal, cancelled, logger) stay live.
    const inner = Object.assign(Object.create(ctx) as HandlerContext<unknown>, { payload, dryRun: true });
    const result = (await handlerOf(type)(inner)) as Partial<DryRunResult> | undefined;
    if (!result?.dryRun || !Array.isArray(result.releases))
      throw new Error(`the ${type} handler ran without returning a dry-run plan`);
    // Named as the job it stands for is listed (`deploy shop nginx:1.27`), not by its own summary.
    return dryRunResult(contractFor(type).describe(payload), result.releases, result.namespace?.name);
  };
}

async function destroyPlan(ctx: HandlerContext<DryRunPayload>, app: string): Promise<DryRunResult> {
  const cluster = await ctx.services.cluster();
  const plans: ReleasePlan[] = [];
  for (const release of appReleases(cluster.history, app)) {
    const plan = await cluster.engine.planUninstall(release, ctx.signal);
    plans.push(plan);
    await ctx.log(planLine(plan));
  }
  if (cluster.apps.get(app)) await ctx.log(`the app record of ${app}: would be deleted`);
  return dryRunResult(contractFor('destroy').describe(ctx.payload.payload), plans);
}
