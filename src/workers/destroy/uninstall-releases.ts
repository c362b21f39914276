/**
 * Uninstalls releases one by one with foreground deletion of their workloads (pods go before the
 * Deployment, and history is deleted only once they are gone), streaming each uninstall's progress
 * into the job: what destroy does to an app and rename to the old name. Idempotent: a release
 * already gone is skipped, so a retried job uninstalls only what is left.
 */
import type { Cluster } from '../cluster.ts';
import { progressForwarder } from '../deploy/progress.ts';
import type { HandlerContext } from '../handler.ts';

/** Uninstalls `releases` in order; returns those that still existed. */
export async function uninstallReleases(
  ctx: HandlerContext<unknown>,
  cluster: Cluster,
  releases: readonly string[],
): Promise<string[]> {
  const removed: string[] = [];
  for (const release of releases) {
    const forwarder = progressForwarder(ctx, release);
    const result = await cluster.engine.uninstall({
      release,
      holder: ctx.idempotencyKey,
      foregroundWorkloads: true,
      onProgress: forwarder.listener,
      signal: ctx.signal,
    });
    await forwarder.flush();
    if (!result.existed) continue;
    removed.push(release);
    const objects = result.deleted.length;
    await ctx.log(`uninstalled ${release} (${objects} object${objects === 1 ? '' : 's'})`);
  }
  return removed;
}
