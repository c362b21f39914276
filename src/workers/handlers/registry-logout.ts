/**
 * `registry-logout`: `--app APP` forgets the app's own credential (as `deploy --clear-registry`:
 * the pipeline uninstalls `pull-secret-{app}` and the pods stop listing it); `--global` deletes
 * the fleet credential for SERVER from Redis (moving its generation, so an app job that read it
 * before and writes it after the uninstall below removes it again: deploy/fleet-pull-secret.ts),
 * then uninstalls every `pull-secret-{app}` whose
 * deployed revision holds that credential (values `source: global`). The app release is not
 * touched: pods keep listing the (now absent) Secret until the app's next deploy or reconcile, and
 * the kubelet then pulls without it. A retry repeats both steps: the delete and the uninstalls of
 * releases already gone are no-ops.
 */
import { normalizeRegistryServer } from '../../apps/registry-host.ts';
import { releaseNames } from '../../apps/releases.ts';
import { InvalidInputError } from '../../core/errors.ts';
import type { RegistryLogoutPayload } from '../../jobs/schemas/registry.ts';
import { loadAppState } from '../app-state.ts';
import { isFleetPullSecret } from '../deploy/fleet-pull-secret.ts';
import { runAppPipeline } from '../deploy/pipeline.ts';
import type { Handler, HandlerContext, HandlerResult } from '../handler.ts';
import { deleteGlobalCredential } from '../registry/global-credentials.ts';
import { recordTypes } from './record-types.ts';

export const registryLogoutHandler: Handler<RegistryLogoutPayload> = async (ctx) =>
  ctx.payload.app ? appLogout(ctx, ctx.payload.app) : globalLogout(ctx);

async function appLogout(ctx: HandlerContext<RegistryLogoutPayload>, app: string): Promise<HandlerResult> {
  const cluster = await ctx.services.cluster();
  const state = await loadAppState(cluster, app);
  const own = state.spec.registry;
  if (!own || normalizeRegistryServer(own.server) !== normalizeRegistryServer(ctx.payload.server)) {
    throw new InvalidInputError([
      {
        path: 'server',
        message: `app ${app} has no credential of its own for ${ctx.payload.server}${own ? ` (it has one for ${own.server})` : ''}`,
      },
    ]);
  }
  const { registry: _forgotten, ...spec } = state.spec;
  const result = await runAppPipeline(ctx, cluster, {
    spec,
    env: state.env,
    ...(state.configLost ? { configLost: state.configLost } : {}),
    registryPassword: null,
    what: `registry credentials for ${own.server} removed`,
  });
  await recordTypes(ctx, spec);
  return result;
}

async function globalLogout(ctx: HandlerContext<RegistryLogoutPayload>): Promise<HandlerResult> {
  const server = normalizeRegistryServer(ctx.payload.server);
  const cluster = await ctx.services.cluster();
  const existed = await deleteGlobalCredential(ctx.services.redis, server);
  await ctx.log(
    existed ? `fleet credential for ${server} removed` : `no fleet credential for ${server} was stored`,
  );
  const removed: string[] = [];
  for (const record of cluster.apps.list()) {
    const app = record.spec?.app;
    if (!app) continue;
    const release = releaseNames.pullSecret(app);
    const deployed = cluster.history.deployed(release);
    if (!deployed) continue;
    const { values } = await cluster.history.read(release, deployed.revision);
    if (!isFleetPullSecret(values, server)) continue;
    const r = await cluster.engine.uninstall({ release, holder: ctx.idempotencyKey, signal: ctx.signal });
    if (r.existed) {
      removed.push(release);
      await ctx.log(
        `${release}: uninstalled (${app}'s pods stop listing it from its next deploy or reconcile)`,
      );
    }
  }
  return {
    summary: `fleet credential for ${server} ${existed ? 'removed' : 'was not stored'}; ${removed.length} pull secret(s) uninstalled`,
  };
}
