/**
 * `profiles` (fleet lane): `set` stores a placement profile in Redis (src/jobs/placement-profiles.ts),
 * `unset` removes one. Apps using a changed profile render it at their next deploy or reconcile.
 * `unset` is refused while a saved app spec still attaches the profile to a process type (its next
 * deploy could not render it), naming the apps and how to detach it. An app job attaching it in
 * the same instant (another lane) is not seen; that app's next deploy is then refused, naming it.
 */
import { InvalidInputError } from '../../core/errors.ts';
import { deleteProfile, saveProfile } from '../../jobs/placement-profiles.ts';
import type { ProfilesPayload } from '../../jobs/schemas/profiles.ts';
import type { Handler } from '../handler.ts';

export const profilesHandler: Handler<ProfilesPayload> = async (ctx) => {
  const p = ctx.payload;
  if (p.action === 'set') {
    if (ctx.dryRun) return { summary: `would set placement profile ${p.name}` };
    await saveProfile(ctx.services.redis, p.name, {
      nodeSelector: p.nodeSelector,
      tolerations: p.tolerations,
    });
    await ctx.log(
      `placement profile ${p.name} saved; apps using it take it at their next deploy or reconcile`,
    );
    return { summary: `placement profile ${p.name} set` };
  }
  const cluster = await ctx.services.cluster();
  const users: string[] = [];
  for (const record of cluster.apps.list()) {
    const spec = record.spec as
      | { app?: string; processes?: Record<string, { profile?: string }> }
      | undefined;
    if (!spec?.app) continue;
    for (const [type, process] of Object.entries(spec.processes ?? {}))
      if (process.profile === p.name) users.push(`${spec.app} (${type})`);
  }
  if (users.length > 0) {
    throw new InvalidInputError(
      [
        {
          path: 'NAME',
          message: `placement profile ${p.name} is used by ${users.sort().join(', ')}; detach it first with ps:set APP TYPE profile`,
        },
      ],
      'profiles:unset',
    );
  }
  const existed = await deleteProfile(ctx.services.redis, p.name);
  return {
    summary: existed ? `placement profile ${p.name} removed` : `no placement profile ${p.name} was stored`,
  };
};
