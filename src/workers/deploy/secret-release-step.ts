/**
 * One step of the app pipeline for a release of Secrets the app release names: `pull-secret-{app}`
 * (its pods' imagePullSecrets) and `autoscaling-auth-{app}` (its TriggerAuthentications). Both are
 * written after the config release and before the app release, and both are installed, left with
 * a warning when their values are lost, or uninstalled, the same way; a dry run plans instead.
 */
import type { ReleaseEngine, ReleasePlan } from '../../releases/index.ts';
import type { HandlerContext } from '../handler.ts';
import { type interruptDecision, outcomeText } from './release-outcome.ts';
import type { Rendered } from './render.ts';

/** What the pipeline does with such a release this job. */
export type SecretReleasePlan =
  | { action: 'install'; rendered: Rendered; values: Record<string, unknown> }
  | { action: 'uninstall'; why: string }
  | { action: 'lost'; message: string }
  | { action: 'none' };

export interface SecretReleaseStep {
  release: string;
  /** How the step's header names the release: `the pull secret`, `trigger authentication`. */
  title: string;
  plan: SecretReleasePlan;
}

export interface SecretReleaseRun {
  app: string;
  holder: string;
  dryRun: boolean;
  onInterrupt: ReturnType<typeof interruptDecision>;
  /** Where a dry run's plan goes (logged and returned with the others). */
  planned: (plan: ReleasePlan) => Promise<void>;
}

export async function runSecretReleaseStep(
  ctx: HandlerContext<unknown>,
  engine: ReleaseEngine,
  { release, title, plan }: SecretReleaseStep,
  run: SecretReleaseRun,
): Promise<void> {
  if (plan.action === 'install' || plan.action === 'lost') await ctx.step(`Releasing ${title} (${release})`);
  if (plan.action === 'lost') {
    await ctx.warn(plan.message);
  } else if (plan.action === 'install') {
    const input = {
      release,
      chart: plan.rendered.chart,
      values: plan.values,
      objects: plan.rendered.objects,
      signal: ctx.signal,
    };
    if (run.dryRun) await run.planned(await engine.plan(input));
    else {
      const r = await engine.upgrade({
        ...input,
        app: run.app,
        holder: run.holder,
        wait: false,
        onInterrupt: run.onInterrupt,
      });
      await ctx.log(`${r.release}: ${outcomeText(r.outcome, r.revision)}`);
    }
  } else if (plan.action === 'uninstall' && run.dryRun) {
    // Nothing to plan for a release that was never installed.
    if (engine.history(release).length > 0)
      await run.planned(await engine.planUninstall(release, ctx.signal));
  } else if (plan.action === 'uninstall') {
    const r = await engine.uninstall({ release, holder: run.holder, signal: ctx.signal });
    if (r.existed) {
      await ctx.step(`Removing ${title} (${r.release})`);
      await ctx.log(`${r.release}: uninstalled (${plan.why})`);
    }
  }
}
