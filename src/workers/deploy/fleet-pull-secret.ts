/**
 * `pull-secret-{app}` holding the fleet's credential for the app's registry (`registry:login
 * --global`), and how a job that wrote it keeps up with a rotation that ran meanwhile.
 *
 * Two writers meet on that release without a common lane: the app's jobs (its lane) and the
 * rotation (the fleet lane, which writes every user's pull secret in place). A job reads the
 * credential, then writes it a little later; a rotation between the two (or overlapping the
 * write) ends with the job's older value live after the rotation reported success, or with a
 * history whose deployed digest is the rotation's while the live Secret holds the job's value (a
 * later job then reports the value lost). So the store keeps a generation per host, moved in the
 * same transaction as every store or delete and before the rotation rewrites any Secret
 * (src/workers/registry/global-credentials.ts), and a job that took its credential from the store
 * (or found none there) checks it after writing the release: unchanged, whatever the rotation does
 * later writes the same credential over this one; moved, the job writes the current credential
 * again (or, after a logout, uninstalls what it wrote), until the generation holds still. The
 * pipeline checks once right after the pull-secret step and once after saving the spec: a rotation
 * finds its users by their deployed pull secrets as its worker's cache has them (and an app's
 * first one by its saved spec, not while a job of the app rolls out), so one that looked before
 * this job's revision reached that cache, or during this job's rollout, left the app out.
 *
 * Both write the newest credential in the end, so the order of their writes does not matter
 * here. A job that takes the app off the fleet credential (a credential of its own, an image
 * moved to another registry) writes something else: there the rotation's write is the one that
 * must not land last, and it writes only over what it checked (registry/rotation-targets.ts).
 */
import { pullSecretChart } from '../../../charts/index.ts';
import { normalizeRegistryServer } from '../../apps/registry-host.ts';
import { releaseNames } from '../../apps/releases.ts';
import { TransientError } from '../../core/errors.ts';
import type { UpgradeResult } from '../../releases/index.ts';
import type { Cluster } from '../cluster.ts';
import type { HandlerContext } from '../handler.ts';
import {
  type GlobalCredential,
  globalCredentialGeneration,
  globalCredentialSnapshot,
} from '../registry/global-credentials.ts';
import { forgetIfGone } from './known-namespaces.ts';
import { ensureNamespace } from './namespace.ts';
import { interruptDecision } from './release-outcome.ts';
import { type Rendered, renderChart } from './render.ts';

/** How often the credential may change under one job before it gives up (and is retried). */
const MAX_ROUNDS = 5;

/** What a job read from the store: the host and the generation its credential had. */
export interface FleetRead {
  host: string;
  generation: number;
}

/**
 * Whether a `pull-secret-{app}` revision (its values) holds the fleet's credential for `host`:
 * written from the store (`source: global`) for that registry. The rotation and the logout of a
 * host find their pull secrets by this, and a deploy whose image left that registry drops it.
 */
export function isFleetPullSecret(values: Record<string, unknown>, host: string): boolean {
  return values.source === 'global' && normalizeRegistryServer(String(values.server)) === host;
}

/** `pull-secret-{app}` holding the fleet's credential; its values say so (`source: global`). */
export function globalPullSecretPlan(
  app: string,
  namespace: string,
  credential: GlobalCredential,
): { action: 'install'; rendered: Rendered; values: Record<string, unknown> } {
  const { server, username, password } = credential;
  return {
    action: 'install',
    rendered: renderChart(
      pullSecretChart,
      { app, namespace, server, username, password },
      `fleet registry credentials for app ${app}`,
    ),
    values: { app, namespace, server, username, source: 'global' },
  };
}

/**
 * After this job wrote (or kept, or found nothing to write in) `pull-secret-{app}` from what it read
 * of the store: when the host's generation moved since, writes the current credential (or
 * uninstalls the fleet's after a logout) and looks again. Returns what the release now follows.
 */
export async function followFleetCredential(
  ctx: HandlerContext<unknown>,
  cluster: Cluster,
  target: { app: string; namespace: string },
  read: FleetRead,
): Promise<FleetRead> {
  const { redis, sealer } = ctx.services;
  let seen = read.generation;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if ((await globalCredentialGeneration(redis, read.host)) === seen)
      return { host: read.host, generation: seen };
    const now = await globalCredentialSnapshot(redis, sealer, read.host);
    await (now.credential
      ? writeCurrent(ctx, cluster, target, now.credential)
      : removeFleetCredential(ctx, cluster, target.app, read.host));
    seen = now.generation;
  }
  throw new TransientError(
    `the fleet credential for ${read.host} changed ${MAX_ROUNDS} times while ${releaseNames.pullSecret(target.app)} was written; retrying`,
  );
}

async function writeCurrent(
  ctx: HandlerContext<unknown>,
  cluster: Cluster,
  target: { app: string; namespace: string },
  credential: GlobalCredential,
): Promise<void> {
  const r = await upgradeFleetPullSecret(ctx, cluster, target, credential);
  await ctx.log(
    `${releaseNames.pullSecret(target.app)}: the fleet credential for ${credential.server} changed while this job ran (registry:login --global); ` +
      (r.outcome === 'noop'
        ? `already current (revision ${r.revision})`
        : `revision ${r.revision} holds the current one`),
  );
}

/**
 * `pull-secret-{app}` written from the fleet credential (globalPullSecretPlan), its namespace
 * created first: what a job catching up with a rotation and the rotation itself both write.
 * `onlyOver`: UpgradeInput.onlyOver (the rotation's compare-and-swap).
 */
export async function upgradeFleetPullSecret(
  ctx: HandlerContext<unknown>,
  cluster: Cluster,
  { app, namespace }: { app: string; namespace: string },
  credential: GlobalCredential,
  onlyOver?: number | null,
): Promise<UpgradeResult> {
  const plan = globalPullSecretPlan(app, namespace, credential);
  await ensureNamespace(cluster.kube.core, cluster.namespaces, namespace);
  return forgetIfGone(cluster.namespaces, namespace, () =>
    cluster.engine.upgrade({
      app,
      release: releaseNames.pullSecret(app),
      chart: plan.rendered.chart,
      values: plan.values,
      objects: plan.rendered.objects,
      holder: ctx.idempotencyKey,
      wait: false,
      description: `fleet registry credential for ${credential.server}`,
      ...(onlyOver !== undefined ? { onlyOver } : {}),
      signal: ctx.signal,
      onInterrupt: interruptDecision(ctx),
    }),
  );
}

/** A logout ran meanwhile: what it uninstalls, this job may have written again after it. */
async function removeFleetCredential(
  ctx: HandlerContext<unknown>,
  cluster: Cluster,
  app: string,
  host: string,
): Promise<void> {
  const release = releaseNames.pullSecret(app);
  const deployed = cluster.history.deployed(release);
  if (!deployed) return;
  const { values } = await cluster.history.read(release, deployed.revision);
  if (!isFleetPullSecret(values, host)) return;
  const r = await cluster.engine.uninstall({ release, holder: ctx.idempotencyKey, signal: ctx.signal });
  if (r.existed)
    await ctx.log(
      `${release}: uninstalled (the fleet credential for ${host} was removed while this job ran)`,
    );
}
