/**
 * Handlers whose job is one pure change to the app's spec (scale, domains, ports, properties,
 * reconcile): load what the app builds on, apply the change, run the deploy pipeline.
 */
import type { AppSpec } from '../../apps/spec.ts';
import { loadAppState } from '../app-state.ts';
import { runAppPipeline } from '../deploy/pipeline.ts';
import type { Handler } from '../handler.ts';
import { recordTypes } from './record-types.ts';

export function specChangeHandler<P extends { app: string }>(
  change: (spec: AppSpec, payload: P) => AppSpec,
  describe: (payload: P) => string,
  options: { onlyKnownApps?: boolean } = {},
): Handler<P> {
  return async (ctx) => {
    const cluster = await ctx.services.cluster();
    const state = await loadAppState(cluster, ctx.payload.app, { dryRun: ctx.dryRun === true });
    if (options.onlyKnownApps && !state.known)
      return { summary: `nothing to do: app ${ctx.payload.app} has no saved spec in this cluster` };
    const spec = change(state.spec, ctx.payload);
    const result = await runAppPipeline(ctx, cluster, {
      spec,
      env: state.env,
      ...(state.configLost ? { configLost: state.configLost } : {}),
      what: describe(ctx.payload),
    });
    await recordTypes(ctx, spec);
    return result;
  };
}
