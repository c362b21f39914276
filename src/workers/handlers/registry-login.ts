/**
 * `registry-login`: registry credentials for one app or for the fleet.
 *
 * `--app APP` (the app's lane): the app's own credential, exactly as `deploy --registry-*` sets
 * it but without a new image — the spec names the server and user, the deploy pipeline installs
 * `pull-secret-{app}` and (when its pods did not list it yet) the app release.
 *
 * `--global` (the fleet lane): 1. the sealed credential is stored in Redis as the producer sealed
 * it (src/workers/registry/global-credentials.ts), moving the host's generation in the same
 * transaction — before any Secret is rewritten, so an app job running meanwhile in its own lane,
 * which may write the credential it read earlier over the one written here, sees the move after
 * its write and writes the current credential again (src/workers/deploy/fleet-pull-secret.ts);
 * 2. every `pull-secret-{app}` whose deployed revision holds the fleet credential for the server
 * (and the first one of an app whose saved spec pulls from it without a credential of its own)
 * gets the new credential, through that release (a new revision, so history says when it
 * changed). Only the pull-secret release is touched: the kubelet reads pull secrets at pull time,
 * so no Deployment is written and no pod restarts. An app whose pods do not list
 * `pull-secret-{app}` yet (its first fleet credential) lists it from its next deploy or
 * reconcile, which consults the same store.
 *
 * The app's own jobs write the same release in their lane, at the same time if they like, and
 * may be taking the app off this credential (`registry:login --app`, an image moved to another
 * registry): so step 2 writes each release only over the revision it decided from, as a
 * compare-and-swap (src/workers/registry/rotation-targets.ts, UpgradeInput.onlyOver). When the
 * release changed since, the job that changed it wrote last, and the rotation leaves the release
 * to it (ReleaseChangedError; said in the log and the summary).
 *
 * A retry repeats both steps: the store write is the same, releases already holding the
 * credential are unchanged (no writes), and one the killed attempt left pending is continued.
 */

import { normalizeRegistryServer } from '../../apps/registry-host.ts';
import { releaseNames } from '../../apps/releases.ts';
import type { RegistryLoginPayload } from '../../jobs/schemas/registry.ts';
import { sealContext } from '../../jobs/sealing.ts';
import { ReleaseChangedError } from '../../releases/index.ts';
import { loadAppState } from '../app-state.ts';
import { globalPullSecretPlan } from '../deploy/fleet-pull-secret.ts';
import { ensureNamespace } from '../deploy/namespace.ts';
import { runAppPipeline } from '../deploy/pipeline.ts';
import { interruptDecision } from '../deploy/release-outcome.ts';
import type { Handler, HandlerContext, HandlerResult } from '../handler.ts';
import { saveGlobalCredential } from '../registry/global-credentials.ts';
import { rotationTarget } from '../registry/rotation-targets.ts';
import { recordTypes } from './record-types.ts';

export const registryLoginHandler: Handler<RegistryLoginPayload> = async (ctx) =>
  ctx.payload.app ? appLogin(ctx, ctx.payload.app) : globalLogin(ctx);

async function appLogin(ctx: HandlerContext<RegistryLoginPayload>, app: string): Promise<HandlerResult> {
  const { server, username } = ctx.payload;
  const password = ctx.services.sealer.open(ctx.payload.password, sealContext.registryPassword(app));
  const cluster = await ctx.services.cluster();
  const state = await loadAppState(cluster, app);
  const spec = { ...state.spec, registry: { server, username } };
  const result = await runAppPipeline(ctx, cluster, {
    spec,
    env: state.env,
    ...(state.configLost ? { configLost: state.configLost } : {}),
    registryPassword: password,
    what: `registry credentials for ${server} set`,
  });
  await recordTypes(ctx, spec);
  return result;
}

async function globalLogin(ctx: HandlerContext<RegistryLoginPayload>): Promise<HandlerResult> {
  const { server, username } = ctx.payload;
  const sealed = ctx.payload.password;
  // Opening it first refuses a value sealed with another passphrase before anything is written.
  const password = ctx.services.sealer.open(sealed, sealContext.registryGlobalPassword(server));
  const cluster = await ctx.services.cluster();

  await ctx.progress({ step: 'store', message: `storing the fleet credential for ${server}` });
  await saveGlobalCredential(ctx.services.redis, { server, username, password: sealed });
  await ctx.log(`fleet credential for ${server} stored (sealed)`);

  const host = normalizeRegistryServer(server);
  const onInterrupt = interruptDecision(ctx);
  let users = 0;
  let updated = 0;
  let leftToApps = 0;
  for (const record of cluster.apps.list()) {
    const target = await rotationTarget(cluster, record, host);
    if (!target) continue;
    users++;
    const { app, namespace } = target;
    const release = releaseNames.pullSecret(app);
    await ctx.progress({ step: 'pull-secrets', message: `${release} in ${namespace}` });
    const plan = globalPullSecretPlan(app, namespace, { server, username, password });
    await ensureNamespace(cluster.kube.core, namespace);
    try {
      const r = await cluster.engine.upgrade({
        app,
        release,
        chart: plan.rendered.chart,
        values: plan.values,
        objects: plan.rendered.objects,
        holder: ctx.idempotencyKey,
        wait: false,
        description: `fleet registry credential for ${server}`,
        // Only over what the decision saw: a job of the app writing meanwhile ends with its write.
        onlyOver: target.over,
        signal: ctx.signal,
        onInterrupt,
      });
      if (r.outcome !== 'noop') updated++;
      await ctx.log(
        `${release}: ${r.outcome === 'noop' ? `unchanged (revision ${r.revision})` : `revision ${r.revision} deployed`}` +
          (target.over === null ? ` (${app}'s pods list it from its next deploy or reconcile)` : ''),
      );
    } catch (err) {
      if (!(err instanceof ReleaseChangedError)) throw err;
      leftToApps++;
      await ctx.log(
        `${release}: left to ${app}'s own job, which wrote it while this rotation ran (${err.reason}); ` +
          `that job keeps a credential of its own, or takes the fleet's from the store itself`,
      );
    }
  }
  return {
    summary:
      `fleet credential for ${server} stored; ${users} app(s) pull from it, ${updated} pull secret(s) updated` +
      (leftToApps > 0 ? `, ${leftToApps} left to the apps' own jobs` : ''),
  };
}
