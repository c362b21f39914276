/**
 * `mounts` (`storage:mount`, `storage:unmount`): a change of the app's spec, deployed like domains
 * or ports, so every Deployment and CronJob of the app gets (or loses) the volume. A mount is
 * refused before anything is written when its entry has no deployed `storage-{entry}` release,
 * when its claim is gone or being deleted, or when it lives in another namespace than the app (a
 * pod can only claim a PVC of its own namespace). A
 * mount runs only after the entry's jobs enqueued before it (it holds the entry's lane through a
 * barrier, src/jobs/schemas/mounts.ts): an earlier storage:destroy has removed the entry by then,
 * and the check refuses it.
 */
import { storageObjectName } from '../../../charts/index.ts';
import { namespaceOf } from '../../apps/chart-values.ts';
import { applyMounts } from '../../apps/mutations.ts';
import { releaseNames } from '../../apps/releases.ts';
import type { AppSpec } from '../../apps/spec.ts';
import { InvalidInputError } from '../../core/errors.ts';
import type { MountsPayload } from '../../jobs/schemas/mounts.ts';
import type { Cluster } from '../cluster.ts';
import type { Handler } from '../handler.ts';
import { specChangeHandler } from './spec-change.ts';
import { deployedEntryCaughtUp, readClaim } from './storage-entry.ts';

const deployMounts = specChangeHandler<MountsPayload>(applyMounts, (p) =>
  p.action === 'mount'
    ? `mounted ${p.mount.entry} at ${p.mount.mountPath}${p.mount.readOnly ? ' (read-only)' : ''}`
    : `unmounted ${p.mount.entry} from ${p.mount.mountPath}`,
);

export const mountsHandler: Handler<MountsPayload> = async (ctx) => {
  if (ctx.payload.action === 'mount') {
    const cluster = await ctx.services.cluster();
    await refuseMissingEntry(cluster, ctx.payload);
  }
  return deployMounts(ctx);
};

async function refuseMissingEntry(cluster: Cluster, payload: MountsPayload): Promise<void> {
  const { entry } = payload.mount;
  const values = await deployedEntryCaughtUp(cluster, entry);
  const subject = `storage:mount ${payload.app}`;
  if (!values) {
    throw new InvalidInputError(
      [
        {
          path: 'mount.entry',
          message: `storage entry ${entry} does not exist (release ${releaseNames.storage(entry)} is not deployed): create it with storage:create`,
        },
      ],
      subject,
    );
  }
  // History is read from this worker's cache; the destroy that ran just before (on another worker,
  // perhaps) may not have reached it yet. The claim, read from the API server, says so for sure.
  const claim = await readClaim(cluster, values.namespace, entry);
  if (!claim || claim.metadata?.deletionTimestamp) {
    throw new InvalidInputError(
      [
        {
          path: 'mount.entry',
          message: `storage entry ${entry} does not exist (its claim ${values.namespace}/${storageObjectName(entry)} is ${claim ? 'being deleted' : 'gone'}): create it with storage:create`,
        },
      ],
      subject,
    );
  }
  const spec: AppSpec | undefined = cluster.apps.get(payload.app)?.spec;
  const namespace = spec ? namespaceOf(spec) : undefined;
  if (namespace !== undefined && namespace !== values.namespace) {
    throw new InvalidInputError(
      [
        {
          path: 'mount.entry',
          message: `storage entry ${entry} is in namespace ${values.namespace}, app ${payload.app} in ${namespace}`,
        },
      ],
      subject,
    );
  }
}
