/** `deploy`: a new image (and Procfile/app.json processes, cron, registry credentials) for an app. */

import { envDigest } from '../../apps/chart-values.ts';
import { applyDeploy } from '../../apps/mutations.ts';
import type { DeployPayload } from '../../jobs/schemas/deploy.ts';
import { sealContext } from '../../jobs/sealing.ts';
import { loadAppState } from '../app-state.ts';
import { runAppPipeline } from '../deploy/pipeline.ts';
import type { Handler } from '../handler.ts';

export const deployHandler: Handler<DeployPayload> = async (ctx) => {
  const { app, registry } = ctx.payload;
  const cluster = await ctx.services.cluster();
  const state = await loadAppState(cluster, app);
  // A deploy restarts every pod anyway, so it picks up config set with --no-restart. (Not when
  // values are lost: config-{app} is left as it is, and so is the digest of what it holds.)
  const configDigest = state.configLost ? state.spec.configDigest : envDigest(state.env);
  const spec = { ...applyDeploy(state.spec, ctx.payload), configDigest };
  const registryPassword = registry
    ? ctx.services.sealer.open(registry.password, sealContext.registryPassword(app))
    : registry; // null forgets the credentials, undefined keeps them
  return runAppPipeline(ctx, cluster, {
    spec,
    env: state.env,
    ...(state.configLost ? { configLost: state.configLost } : {}),
    ...(registryPassword !== undefined ? { registryPassword } : {}),
    what: `deployed ${ctx.payload.image}`,
  });
};
