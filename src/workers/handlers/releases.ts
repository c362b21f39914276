/**
 * `releases`: the app release's history as the job's return value (newest first), read from the
 * worker's history cache and each revision's stored values (its image, and whether it recorded the
 * spec a rollback needs). Writes nothing.
 */
import { releaseNames } from '../../apps/releases.ts';
import { recordOf } from '../../apps/revision-record.ts';
import { PermanentError } from '../../core/errors.ts';
import type { ReleaseEntry, ReleasesPayload } from '../../jobs/schemas/releases.ts';
import type { Handler } from '../handler.ts';

export const releasesHandler: Handler<ReleasesPayload> = async (ctx) => {
  const { app } = ctx.payload;
  const { history, apps } = await ctx.services.cluster();
  const release = releaseNames.app(app);
  if (history.history(release).length === 0 && !apps.get(app))
    throw new PermanentError(`app ${app} does not exist in this cluster`);
  const releases: ReleaseEntry[] = [];
  for (const info of [...history.history(release)].reverse()) {
    const values = info.unreadable
      ? undefined
      : await history
          .read(release, info.revision)
          .then((c) => c.values)
          .catch(() => undefined);
    const image = typeof values?.image === 'string' ? values.image : undefined;
    releases.push({
      revision: info.revision,
      status: info.status,
      ...(image ? { image } : {}),
      change: info.description,
      at: info.modifiedAt,
      createdAt: info.createdAt,
      ...(info.holder ? { job: info.holder } : {}),
      rollbackable: values !== undefined && recordOf(values) !== undefined,
    });
  }
  return {
    summary: releases.length === 0 ? `app ${app} has no releases` : `${releases.length} revisions of ${app}`,
    releases,
  };
};
