/**
 * What a run runs: the app chart's values of the app's deployed revision — the image, pull
 * secrets, mounts and resources its Deployments have right now (a deploy whose rollout failed, or
 * one still in flight, leaves the deployed revision as it was) — checked before anything is
 * created: the app exists, has a deployed revision, and has the process type asked for.
 */
import { type AppChartValues, appValues } from '../../../charts/index.ts';
import { releaseNames } from '../../apps/releases.ts';
import { RECORDED_KEY } from '../../apps/revision-record.ts';
import { PermanentError } from '../../core/errors.ts';
import type { Cluster } from '../cluster.ts';

export interface RunTarget {
  values: AppChartValues;
  /** The app release revision the run is built from. */
  revision: number;
}

export async function runTarget(cluster: Cluster, app: string, process: string): Promise<RunTarget> {
  const release = releaseNames.app(app);
  const deployed = cluster.history.deployed(release);
  if (!deployed) {
    if (!cluster.apps.get(app) && !cluster.history.last(release))
      throw new PermanentError(`app ${app} does not exist`);
    throw new PermanentError(`app ${app} has no deployed revision: deploy it first`);
  }
  if (deployed.unreadable)
    throw new PermanentError(
      `app ${app}: deployed revision ${deployed.revision} cannot be read (${deployed.unreadable}); deploy the app again`,
    );
  const { values } = await cluster.history.read(release, deployed.revision);
  const { [RECORDED_KEY]: _recorded, ...chartValues } = values;
  const parsed = appValues.safeParse(chartValues);
  if (!parsed.success)
    throw new PermanentError(
      `app ${app}: deployed revision ${deployed.revision} has values this worker cannot read ` +
        `(${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}); deploy the app again`,
    );
  const types = Object.keys(parsed.data.processes).sort();
  if (!types.includes(process))
    throw new PermanentError(
      `app ${app} has no process ${process} (processes: ${types.join(', ') || 'none'})`,
    );
  return { values: parsed.data, revision: deployed.revision };
}
