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
 * release changed since (ReleaseChangedError), the job that changed it wrote last: the rotation
 * decides again a few times (this worker's cache may have lagged), then leaves the release to
 * that job (said in the log and the summary).
 *
 * A retry repeats both steps: the store write is the same, releases already holding the
 * credential are unchanged (no writes), and one the killed attempt left pending is continued.
 */

import { normalizeRegistryServer } from '../../apps/registry-host.ts';
import { releaseNames } from '../../apps/releases.ts';
import type { AppSpec } from '../../apps/spec.ts';
import type { RegistryLoginPayload } from '../../jobs/schemas/registry.ts';
import { sealContext } from '../../jobs/sealing.ts';
import { ReleaseChangedError } from '../../releases/index.ts';
import type { AppRecord } from '../../storage/index.ts';
import { loadAppState } from '../app-state.ts';
import type { Cluster } from '../cluster.ts';
import { upgradeFleetPullSecret } from '../deploy/fleet-pull-secret.ts';
import { runAppPipeline } from '../deploy/pipeline.ts';
import type { Handler, HandlerContext, HandlerResult } from '../handler.ts';
import { type GlobalCredential, saveGlobalCredential } from '../registry/global-credentials.ts';
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
  let users = 0;
  let updated = 0;
  let leftToApps = 0;
  for (const record of cluster.apps.list()) {
    const outcome = await rotateApp(ctx, cluster, record, host, { server, username, password });
    if (outcome === 'none') continue;
    users++;
    if (outcome === 'updated') updated++;
    if (outcome === 'left') leftToApps++;
  }
  return {
    summary:
      `fleet credential for ${server} stored; ${users} app(s) pull from it, ${updated} pull secret(s) updated` +
      (leftToApps > 0 ? `, ${leftToApps} left to the apps' own jobs` : ''),
  };
}

/**
 * How often the rotation decides again for an app whose release changed under it, and the pause
 * before it does: what changed may be a revision another worker wrote a moment ago that this
 * worker's history cache has not seen yet (the next look sees it and decides right).
 */
const DECISION_ROUNDS = 3;
const ROUND_PAUSE_MS = 250;

/** One app's pull secret: written over what its deployed revision holds, or left to its own job. */
async function rotateApp(
  ctx: HandlerContext<RegistryLoginPayload>,
  cluster: Cluster,
  record: AppRecord<AppSpec>,
  host: string,
  credential: GlobalCredential,
): Promise<'none' | 'unchanged' | 'updated' | 'left'> {
  let changed: ReleaseChangedError | undefined;
  for (let round = 0; round < DECISION_ROUNDS; round++) {
    if (changed) await pause(ROUND_PAUSE_MS, ctx.signal);
    // The record as this worker has it now: the job that changed the release may have saved a spec.
    const current = changed ? cluster.apps.get(record.app) : record;
    const target = current && (await rotationTarget(cluster, current, host));
    if (!target) break;
    const { app, namespace } = target;
    const release = releaseNames.pullSecret(app);
    await ctx.progress({ step: 'pull-secrets', message: `${release} in ${namespace}` });
    try {
      // Only over what the decision saw: a job of the app writing meanwhile ends with its write.
      const r = await upgradeFleetPullSecret(ctx, cluster, target, credential, target.over);
      await ctx.log(
        `${release}: ${r.outcome === 'noop' ? `unchanged (revision ${r.revision})` : `revision ${r.revision} deployed`}` +
          (target.over === null ? ` (${app}'s pods list it from its next deploy or reconcile)` : ''),
      );
      return r.outcome === 'noop' ? 'unchanged' : 'updated';
    } catch (err) {
      if (!(err instanceof ReleaseChangedError)) throw err;
      changed = err;
    }
  }
  if (!changed) return 'none';
  await ctx.log(
    `${releaseNames.pullSecret(record.app)}: left to ${record.app}'s own job, which wrote it while this rotation ran ` +
      `(${changed.reason}); that job keeps a credential of its own, or takes the fleet's from the store itself`,
  );
  return 'left';
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
