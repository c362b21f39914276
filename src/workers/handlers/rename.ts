/**
 * `rename OLD NEW`: a saga whose step is recorded in the job's hash (rename/plan.ts), so a retry
 * after a crash resumes it (docs/apps.md, "rename"):
 *
 *   refuse (NEW exists, OLD does not exist) → plan saved → install NEW through the deploy pipeline
 *   (`config-{new}` from OLD's live config, `pull-secret-{new}` from OLD's live pull secret,
 *   `autoscaling-auth-{new}` from OLD's live trigger authentication Secrets, the
 *   app release with OLD's spec: cron suffixes, mounts and domains carried over, rollout awaited;
 *   NEW's record saved) → uninstall every release of OLD and delete its record → move the status
 *   projection (NEW takes OLD's revision; OLD is marked renamed with its lane's position at the
 *   move: its jobs enqueued before the move fail, and later only a deploy, which creates OLD anew,
 *   runs; src/jobs/renamed.ts).
 *
 * Each step is idempotent on its own (an unchanged release is a no-op, an uninstalled one has no
 * history), and the plan makes the order hold across retries: OLD is read only before `installed`,
 * when nothing of it has been removed yet. Ordering: the job runs in OLD's lane and holds NEW's
 * through a barrier its producer reserved (docs/ordering.md, "Barriers"): it starts after the jobs
 * of both names enqueued before it, no job of either name runs meanwhile, and later jobs of OLD
 * fail, unless a deploy enqueued after the move reclaims the name — it runs after the rename, which
 * heads OLD's lane until it ends (job-runner.ts, src/jobs/renamed.ts).
 */
import { releaseNames } from '../../apps/releases.ts';
import { PermanentError } from '../../core/errors.ts';
import { laneId } from '../../jobs/lane.ts';
import { moveProjection } from '../../jobs/renamed.ts';
import type { RenamePayload } from '../../jobs/schemas/rename.ts';
import { readLaneStatus } from '../../jobs/status.ts';
import { loadAppState } from '../app-state.ts';
import type { Cluster } from '../cluster.ts';
import { liveAutoscalingAuth } from '../deploy/autoscaling-auth.ts';
import { lostConfigMessage } from '../deploy/lost-secrets.ts';
import { runAppPipeline } from '../deploy/pipeline.ts';
import { appReleases } from '../destroy/app-releases.ts';
import { deleteRunJobs } from '../destroy/run-jobs.ts';
import { uninstallReleases } from '../destroy/uninstall-releases.ts';
import type { Handler, HandlerContext } from '../handler.ts';
import { type RenamePlan, reached, readRenamePlan, saveRenamePlan } from '../rename/plan.ts';
import { livePullPassword } from '../rename/pull-password.ts';

const STORAGE_PREFIX = releaseNames.storage('');

export const renameHandler: Handler<RenamePayload> = async (ctx) => {
  const { app: from, newName: to } = ctx.payload;
  const { redis } = ctx.services;
  const cluster = await ctx.services.cluster();
  let plan = await readRenamePlan(redis, ctx.job.id);
  if (!plan) {
    await refuseTaken(ctx, cluster, to);
    if (!cluster.apps.get(from)) throw new PermanentError(`app ${from} does not exist`);
    plan = { step: 'planned' };
    await saveRenamePlan(redis, ctx.job.id, plan);
  }
  await ctx.step(`Renaming ${from} to ${to}`);
  if (!reached(plan, 'installed')) await install(ctx, cluster, plan);
  if (!reached(plan, 'uninstalled')) await uninstallOld(ctx, cluster, plan);
  if (!reached(plan, 'moved')) await moveProjection(redis, from, to, ctx.job.id);
  // The app is NEW's from here, so the job's end (even a failure to record `moved`) empties OLD's
  // release fields (NEW's lane has them now; OLD's keeps its job history). The marker is complete
  // as the move wrote it (with OLD's lane position): the end adds nothing to it, so a rename that
  // stalls from here on and is failed without our finish script still refuses what it should.
  ctx.report({ destroyed: true });
  if (!reached(plan, 'moved')) await advance(ctx, plan, 'moved');
  return { summary: `renamed ${from} to ${to}` };
};

/**
 * NEW exists: an app record, any release of its own, or a projection showing it live. Jobs for NEW
 * enqueued before the rename have run by now: the runner starts a job holding a barrier lane only
 * once it heads that lane too (docs/ordering.md, "Barriers"), so what they created is seen here.
 */
async function refuseTaken(ctx: HandlerContext<RenamePayload>, cluster: Cluster, to: string): Promise<void> {
  const releases = cluster.history.releases(to).filter((r) => !r.startsWith(STORAGE_PREFIX));
  const status = await readLaneStatus(ctx.services.redis, laneId({ kind: 'app', name: to }));
  const live = status?.revision !== undefined && !status.destroyed && status.renamedTo === undefined;
  if (cluster.apps.get(to) || releases.length > 0 || live)
    throw new PermanentError(`app ${to} already exists`);
}

async function install(
  ctx: HandlerContext<RenamePayload>,
  cluster: Cluster,
  plan: RenamePlan,
): Promise<void> {
  const { app: from, newName: to } = ctx.payload;
  const state = await loadAppState(cluster, from);
  // A value the live Secret lost cannot be carried over: refused before NEW gets anything.
  if (state.configLost) throw new PermanentError(lostConfigMessage(from, state.configLost));
  const pull = await livePullPassword(cluster, state.spec);
  if (pull && 'lost' in pull)
    await ctx.log(
      `the registry password of ${from} is no longer in its live pull secret: ${to} gets no pull secret; ` +
        `give it again with deploy --registry-password-stdin`,
    );
  // KEDA trigger authentication: NEW gets OLD's live values (its Secrets and TriggerAuthentications
  // under NEW's names); a trigger whose values the live Secret lost is left out, and said so.
  const auth = await liveAutoscalingAuth(cluster, from);
  if (auth && auth.lost.length > 0)
    await ctx.log(`${auth.message}; ${to} gets no trigger authentication for ${auth.lost.join(', ')}`);
  const { autoscalingAuth: _auth, ...spec } = state.spec;
  const keys = Object.fromEntries(
    Object.entries(auth?.values ?? {}).map(([t, parameters]) => [t, Object.keys(parameters).sort()]),
  );
  await ctx.log(`installing ${to} with the spec and config of ${from}`);
  await runAppPipeline(ctx, cluster, {
    spec: { ...spec, app: to, ...(Object.keys(keys).length > 0 ? { autoscalingAuth: keys } : {}) },
    env: state.env,
    autoscalingAuth: auth?.values ?? {},
    ...(pull && 'password' in pull ? { registryPassword: pull.password } : {}),
    what: `renamed from ${from}`,
    takeDomainsFrom: from,
  });
  await advance(ctx, plan, 'installed');
}

async function uninstallOld(
  ctx: HandlerContext<RenamePayload>,
  cluster: Cluster,
  plan: RenamePlan,
): Promise<void> {
  const from = ctx.payload.app;
  // The old name's run Jobs go as destroy's do (run-jobs.ts): their env is the old config release.
  for (const run of await deleteRunJobs(cluster, from, ctx.signal)) await ctx.log(`deleted run Job ${run}`);
  await uninstallReleases(ctx, cluster, appReleases(cluster.history, from));
  if (cluster.apps.get(from)) {
    await cluster.apps.delete(from);
    await ctx.log(`deleted the app record of ${from}`);
  }
  await advance(ctx, plan, 'uninstalled');
}

async function advance(ctx: HandlerContext<RenamePayload>, plan: RenamePlan, step: RenamePlan['step']) {
  plan.step = step;
  await saveRenamePlan(ctx.services.redis, ctx.job.id, plan);
}
