/**
 * `storage-destroy`: uninstall release `storage-{entry}` and delete the app record that owns its
 * history. Refused, before anything is written, while any app's saved spec mounts the entry, or
 * any Pod or Deployment uses its claim. A mount holds the entry's lane (its contract's barrier,
 * src/jobs/schemas/mounts.ts), so a mount enqueued before this job has finished — its spec saved —
 * and one enqueued after it waits. Both checks read the API server, not this worker's caches: the
 * mount that just finished may have run on another worker, and a cache a moment behind would let
 * this job delete a claim in use.
 * The claim goes with the release; a dynamically provisioned volume then follows its class's
 * reclaim policy, a hostPath one is deleted as an object and its directory stays on the node.
 * A retry after a crash finds the release (or the record) already gone and finishes the rest.
 */
import { releaseNames } from '../../apps/releases.ts';
import type { AppSpec } from '../../apps/spec.ts';
import { PermanentError } from '../../core/errors.ts';
import type { StorageDestroyPayload } from '../../jobs/schemas/storage.ts';
import type { AppRecord } from '../../storage/index.ts';
import type { Handler } from '../handler.ts';
import { claimUsers, deployedEntry } from './storage-entry.ts';

/**
 * `shop (web:/data), blog (/var/lib/blog:ro)`: the apps whose saved spec mounts `entry`, and
 * where (`process:` when the mount is one process's only).
 */
export function mountedBy(records: AppRecord<AppSpec>[], entry: string): string[] {
  const users: string[] = [];
  for (const record of records) {
    const paths = (record.spec?.mounts ?? [])
      .filter((m) => m.entry === entry)
      .map((m) => `${m.process ? `${m.process}:` : ''}${m.mountPath}${m.readOnly ? ':ro' : ''}`);
    if (paths.length > 0) users.push(`${record.app} (${paths.join(', ')})`);
  }
  return users;
}

export const storageDestroyHandler: Handler<StorageDestroyPayload> = async (ctx) => {
  const { name } = ctx.payload;
  const cluster = await ctx.services.cluster();
  const release = releaseNames.storage(name);
  const users = mountedBy(await cluster.apps.listFresh(), name);
  if (users.length > 0) {
    throw new PermanentError(`storage entry ${name} is mounted by ${users.join(', ')}; unmount it first`);
  }
  const values = await deployedEntry(cluster, name);
  const inUse = values ? await claimUsers(cluster, values.namespace, name) : [];
  if (inUse.length > 0) {
    throw new PermanentError(
      `storage entry ${name} is still in use by ${inUse.join(', ')} in namespace ${values!.namespace} ` +
        '(no saved spec mounts it: a rollout that mounted it failed?); deploy or unmount the app, then destroy it',
    );
  }
  await ctx.step(`Destroying storage entry ${name} (${release})`);
  const result = await cluster.engine.uninstall({ release, holder: ctx.idempotencyKey, signal: ctx.signal });
  for (const ref of result.deleted) await ctx.log(`${release}: deleted ${ref.kind} ${ref.name}`);
  const record = cluster.apps.get(release) !== undefined;
  if (record) await cluster.apps.delete(release);
  if (!result.existed && !record) return { summary: `storage entry ${name}: nothing to remove` };
  return {
    summary: result.existed
      ? `storage entry ${name} destroyed (${result.deleted.length} object(s) deleted)`
      : `storage entry ${name}: release already uninstalled; its record removed`,
  };
};
