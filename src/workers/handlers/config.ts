/**
 * `config`: set or unset environment variables. The `config-{app}` release holds them; with
 * `restart` (the default) the pods roll through the config-digest annotation, without it they keep
 * running and pick the values up on their next restart or deploy.
 */
import { envDigest } from '../../apps/chart-values.ts';
import type { ConfigPayload } from '../../jobs/schemas/config.ts';
import { sealContext } from '../../jobs/sealing.ts';
import { loadAppState } from '../app-state.ts';
import { refuseLostConfig } from '../deploy/lost-secrets.ts';
import { runAppPipeline } from '../deploy/pipeline.ts';
import type { Handler } from '../handler.ts';
import { recordTypes } from './record-types.ts';

export const configHandler: Handler<ConfigPayload> = async (ctx) => {
  const { app, set, unset, restart } = ctx.payload;
  const cluster = await ctx.services.cluster();
  const state = await loadAppState(cluster, app, { dryRun: ctx.dryRun === true });
  refuseLostConfig(app, state.configLost, Object.keys(set), unset);
  const env = { ...state.env };
  for (const [key, sealed] of Object.entries(set))
    env[key] = ctx.services.sealer.open(sealed, sealContext.config(app, key));
  for (const key of unset) delete env[key];
  const roll = restart || state.spec.configDigest === '';
  const spec = { ...state.spec, configDigest: roll ? envDigest(env) : state.spec.configDigest };
  const parts = [
    Object.keys(set).length > 0 ? `set ${Object.keys(set).sort().join(', ')}` : '',
    unset.length > 0 ? `unset ${[...unset].sort().join(', ')}` : '',
  ].filter(Boolean);
  const result = await runAppPipeline(ctx, cluster, {
    spec,
    env,
    what: `config ${parts.join('; ')}${roll ? '' : ' (no restart)'}`,
  });
  await recordTypes(ctx, spec);
  return result;
};
