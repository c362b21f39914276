/** `report`: the app's saved spec and its app release's deployed and last revisions. Writes nothing. */
import { releaseNames } from '../../apps/releases.ts';
import { PermanentError } from '../../core/errors.ts';
import type { ReportPayload } from '../../jobs/schemas/report.ts';
import type { Handler } from '../handler.ts';

export const reportHandler: Handler<ReportPayload> = async (ctx) => {
  const { app } = ctx.payload;
  const { apps, history } = await ctx.services.cluster();
  const record = apps.get(app);
  const release = releaseNames.app(app);
  const deployed = history.deployed(release);
  const last = history.last(release);
  if (!record && !last) throw new PermanentError(`app ${app} does not exist in this cluster`);
  const revisionOf = (r: typeof last) =>
    r ? { revision: r.revision, status: r.status, change: r.description, at: r.modifiedAt } : undefined;
  return {
    summary: record ? `report of ${app}` : `app ${app} has releases but no saved spec in this cluster`,
    known: record !== undefined,
    ...(record?.spec ? { spec: record.spec } : {}),
    ...(record?.unreadableSpec !== undefined ? { unreadableSpec: record.unreadableSpec } : {}),
    ...(deployed ? { deployed: revisionOf(deployed) } : {}),
    ...(last && last.revision !== deployed?.revision ? { last: revisionOf(last) } : {}),
  };
};
