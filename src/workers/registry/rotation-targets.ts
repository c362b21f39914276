/**
 * Which `pull-secret-{app}` a rotation of the fleet credential for a registry host writes, and
 * over which of its revisions (docs/apps.md, "A rotation and the app's own jobs").
 *
 * Decided per app from what is deployed — the pull secret's deployed revision holds the fleet
 * credential for this host (values `source: global`, `server`) — not from the saved spec: the spec
 * an app's job is changing (a credential of its own, an image moved to another registry) is
 * saved only at the end of that job, and this worker's cache of it may lag behind another
 * worker's save. What is decided here is then written as a compare-and-swap (UpgradeInput
 * onlyOver): only while nothing came after that revision in history and the live Secret, read
 * from the API server, still holds what it wrote, and only at the resourceVersion it was checked
 * at. A job of the app writing meanwhile therefore always ends with its own write: it wrote before
 * the check (the check fails), between the check and the rotation's write (that write fails), or
 * after it (it lands last).
 *
 * An app with no pull secret yet gets its first from the rotation when its saved spec pulls from
 * the host without a credential of its own (its pods list it from its next deploy or reconcile,
 * which would write it too) — but not while a job of the app is past its pull-secret step (its
 * app release has a pending revision): that job writes what it planned and consults the store
 * itself.
 */
import { namespaceOf } from '../../apps/chart-values.ts';
import { pullsFrom } from '../../apps/registry-host.ts';
import { releaseNames } from '../../apps/releases.ts';
import type { AppSpec } from '../../apps/spec.ts';
import type { AppRecord } from '../../storage/index.ts';
import type { Cluster } from '../cluster.ts';
import { isFleetPullSecret } from '../deploy/fleet-pull-secret.ts';

export interface RotationTarget {
  app: string;
  namespace: string;
  /** The revision the rotation writes over (UpgradeInput.onlyOver); `null`: the app's first. */
  over: number | null;
}

/** The rotation's target in this app (undefined: the rotation leaves its pull secret alone). */
export async function rotationTarget(
  cluster: Cluster,
  record: AppRecord<AppSpec>,
  host: string,
): Promise<RotationTarget | undefined> {
  const app = record.app;
  const release = releaseNames.pullSecret(app);
  const deployed = cluster.history.deployed(release);
  if (deployed) {
    const { values } = await cluster.history.read(release, deployed.revision);
    if (!isFleetPullSecret(values, host)) return undefined;
    const namespace =
      typeof values.namespace === 'string' ? values.namespace : record.spec && namespaceOf(record.spec);
    return namespace ? { app, namespace, over: deployed.revision } : undefined;
  }
  // Revisions but none deployed: a job of the app is installing it (or failed to).
  if (cluster.history.history(release).length > 0) return undefined;
  const spec = record.spec;
  if (!spec?.image || spec.registry || !pullsFrom(spec.image, host)) return undefined;
  const appRevision = cluster.history.last(releaseNames.app(app));
  if (appRevision?.status.startsWith('pending-')) return undefined;
  return { app, namespace: namespaceOf(spec), over: null };
}
