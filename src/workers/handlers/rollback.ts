/**
 * `rollback` (`releases:rollback APP [REVISION]`): restores an earlier app revision as a new one,
 * and makes what later jobs build on follow it (docs/apps.md, "rollback"):
 *
 *   decide the target and read what it recorded (no write) → `config-{app}` back to the config
 *   revision deployed with it (its values opened from history, where they are sealed) → the app
 *   release rolled back to the target (rollout awaited; when it fails, `config-{app}` goes back to
 *   what the running pods were started with) → the target's spec saved in the app record.
 *
 * Every step is idempotent: a config release already at the target's content is left alone, the
 * engine does not roll back twice for the same job, and saving an equal spec writes nothing.
 */

import { APP_DEFAULTS } from '../../apps/defaults.ts';
import { releaseNames } from '../../apps/releases.ts';
import { recordOf } from '../../apps/revision-record.ts';
import { PermanentError } from '../../core/errors.ts';
import type { RollbackPayload } from '../../jobs/schemas/rollback.ts';
import type { Cluster } from '../cluster.ts';
import { appReleaseForwarding, progressForwarder } from '../deploy/progress.ts';
import { interruptDecision, releaseReport } from '../deploy/release-outcome.ts';
import type { Handler, HandlerContext } from '../handler.ts';
import { readRollbackPlan, saveRollbackPlan } from '../rollback/plan.ts';
import { rollbackTarget } from '../rollback/target.ts';
import { recordTypes } from './record-types.ts';

export const rollbackHandler: Handler<RollbackPayload> = async (ctx) => {
  const { app } = ctx.payload;
  const cluster = await ctx.services.cluster();
  const { history, engine, apps } = cluster;
  const release = releaseNames.app(app);
  const holder = ctx.idempotencyKey;
  const onInterrupt = interruptDecision(ctx);

  // 1. What to restore, before any write.
  // History an older worker may have written with values in it: redacted before it is compared.
  await engine.redactHistory([releaseNames.config(app)]);
  const target = rollbackTarget(app, history.history(release), ctx.payload.revision, holder);
  const record = recordOf((await history.read(release, target.revision)).values);
  if (!record)
    throw new PermanentError(
      `revision ${target.revision} of app ${app} cannot be rolled back to: it was made before revisions ` +
        `recorded the app's spec, so its settings and config cannot be restored; deploy its image instead`,
    );
  const spec = record.spec;
  await ctx.step(`Rolling back ${app} to revision ${target.revision}`);

  // What config-{app} was before this job's first attempt: where it goes back to if the app's
  // rollback fails for good (recorded, since a retried attempt finds config already rolled back).
  const plan = (await readRollbackPlan(ctx.services.redis, ctx.job.id)) ?? {
    configBefore: history.deployed(releaseNames.config(app))?.revision ?? null,
  };
  await saveRollbackPlan(ctx.services.redis, ctx.job.id, plan);

  // 2. config-{app}: the values the target ran with (history keeps them sealed; the engine refuses
  // before writing when an old revision keeps only a digest and the live Secret lost the value).
  await restoreConfig(ctx, cluster, app, target.revision, record.configRevision);

  // 3. The app release.
  await ctx.step(`Releasing ${app}`);
  const forward = progressForwarder(ctx, app, appReleaseForwarding(app, Object.keys(spec.processes)));
  const timeoutSeconds = spec.properties.deployTimeoutSeconds ?? APP_DEFAULTS.deployTimeoutSeconds;
  let result: Awaited<ReturnType<typeof engine.rollback>>;
  try {
    result = await engine.rollback({
      release,
      revision: target.revision,
      holder,
      wait: { timeoutMs: timeoutSeconds * 1000, rollouts: true },
      onProgress: forward.listener,
      signal: ctx.signal,
      onInterrupt,
    });
  } catch (err) {
    await forward.flush();
    // Only when the job ends here (a rollout failure, its last attempt, a cancel): a job that will
    // be retried, or handed on at shutdown, resumes the rollback with config where it is.
    const decision = onInterrupt(err);
    if (decision === 'give-up' || decision === 'cancel')
      await undoConfig(ctx, cluster, app, plan.configBefore);
    ctx.report(await releaseReport(history, release));
    throw err;
  } finally {
    await forward.flush();
  }
  ctx.report(await releaseReport(history, release, spec.image));
  await ctx.log(
    result.outcome === 'noop'
      ? `${app}: revision ${result.revision} already restores revision ${target.revision}`
      : `${app}: revision ${result.revision} deployed (rollback to ${target.revision})`,
  );

  // 4. Later jobs build on what now runs.
  await apps.saveSpec(app, spec);
  await recordTypes(ctx, spec);
  return {
    summary: `rolled back to revision ${target.revision} (${app} revision ${result.revision}, ${spec.image})`,
    revision: result.revision,
    ...(spec.image ? { image: spec.image } : {}),
  };
};

/** Rolls `config-{app}` back to the config revision the target ran with. */
async function restoreConfig(
  ctx: HandlerContext<RollbackPayload>,
  cluster: Cluster,
  app: string,
  appRevision: number,
  configRevision: number | undefined,
): Promise<void> {
  const { history, engine } = cluster;
  const release = releaseNames.config(app);
  if (configRevision === undefined) {
    await ctx.log(`${release}: revision ${appRevision} ran without config; left as it is`);
    return;
  }
  const target = history.history(release).find((r) => r.revision === configRevision);
  if (!target)
    throw new PermanentError(
      `revision ${appRevision} of app ${app} ran with revision ${configRevision} of ${release}, which history ` +
        `no longer keeps; its environment cannot be restored`,
    );
  const deployed = history.deployed(release);
  if (deployed?.digest === target.digest) {
    await ctx.log(
      `${release}: already holds the values of revision ${configRevision} (revision ${deployed.revision})`,
    );
    return;
  }
  const r = await engine.rollback({
    release,
    revision: configRevision,
    holder: ctx.idempotencyKey,
    wait: false,
    signal: ctx.signal,
    onInterrupt: interruptDecision(ctx),
  });
  await ctx.log(`${release}: revision ${r.revision} deployed (rollback to ${configRevision})`);
}

/**
 * The app's rollback failed for good, so its pods still run the revision before: `config-{app}`
 * goes back to the revision it had before the job, rather than leave those pods to restart into
 * the target's env. Nothing to do when it holds that content already (step 2 changed nothing, or
 * an earlier attempt undid it). Best effort: the job fails with the rollback's error either way,
 * and a failure here is logged with what to do. Without the job's signal: after a cancel it is
 * aborted, and this write is part of ending the job cleanly (as the engine's restore on cancel).
 */
async function undoConfig(
  ctx: HandlerContext<RollbackPayload>,
  cluster: Cluster,
  app: string,
  configBefore: number | null,
): Promise<void> {
  const { history, engine } = cluster;
  const release = releaseNames.config(app);
  const deployed = history.deployed(release);
  if (configBefore === null) {
    if (deployed)
      await ctx.log(
        `${release}: left at revision ${deployed.revision}: it had no deployed revision before the rollback`,
      );
    return;
  }
  const before = history.history(release).find((r) => r.revision === configBefore);
  if (deployed && before && deployed.digest === before.digest) return;
  try {
    const r = await engine.rollback({
      release,
      revision: configBefore,
      holder: `${ctx.idempotencyKey}:undo`,
      wait: false,
    });
    await ctx.log(
      `${release}: back at the values of revision ${configBefore} (revision ${r.revision}), since the app's rollback failed`,
    );
  } catch (err) {
    await ctx.log(
      `${release}: could not go back to revision ${configBefore} after the app's rollback failed ` +
        `(${err instanceof Error ? err.message : String(err)}); run releases:rollback again or config:set`,
    );
  }
}
