/**
 * `config`: set or unset environment variables. The `config-{app}` release holds them; with
 * `restart` (the default) the pods roll through the config-digest annotation, without it they keep
 * running and pick the values up on their next restart or deploy.
 */
import { envDigest } from '../../apps/chart-values.ts';
import type { ConfigPayload } from '../../jobs/schemas/config.ts';
import { loadAppState } from '../app-state.ts';
import { changedEnv, describeEnvChange } from '../deploy/env-change.ts';
import { runAppPipeline } from '../deploy/pipeline.ts';
import type { Handler } from '../handler.ts';
import { recordTypes } from './record-types.ts';

export const configHandler: Handler<ConfigPayload> = async (ctx) => {
  const { app, set, unset, restart } = ctx.payload;
  const cluster = await ctx.services.cluster();
  const state = await loadAppState(cluster, app, { dryRun: ctx.dryRun === true });
  const env = changedEnv(ctx, app, state, { set, unset });
  const roll = restart || state.spec.configDigest === '';
  const spec = { ...state.spec, configDigest: roll ? envDigest(env) : state.spec.configDigest };
  const result = await runAppPipeline(ctx, cluster, {
    spec,
    env,
    what: `config ${describeEnvChange({ set, unset })}${roll ? '' : ' (no restart)'}`,
  });
  await recordTypes(ctx, spec);
  return result;
};
