/**
 * After an app job succeeded: the app's process types, for producers to check `ps:scale` and
 * app.json formations against before enqueueing (and which are autoscaled, for `ps:scale`) (src/jobs/app-processes.ts). A hint only, so a
 * failure to write it is logged and does not fail a job whose changes are already live.
 */
import type { AppSpec } from '../../apps/spec.ts';
import { recordProcessTypes } from '../../jobs/app-processes.ts';
import type { HandlerContext } from '../handler.ts';

export async function recordTypes(ctx: HandlerContext<unknown>, spec: AppSpec): Promise<void> {
  // A dry run's spec is not the app's: nothing deployed it.
  if (ctx.dryRun) return;
  try {
    const autoscaled = Object.entries(spec.processes)
      .filter(([, p]) => p.autoscaling !== undefined)
      .map(([type]) => type);
    await recordProcessTypes(ctx.services.redis, spec.app, Object.keys(spec.processes), autoscaled);
  } catch (err) {
    ctx.logger.warn({ app: spec.app, err: (err as Error).message }, 'could not record the process types');
  }
}
