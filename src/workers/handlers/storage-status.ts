/**
 * `storage-status` and `storage-list`: reads. The answer is the job's return value (the CLI holds
 * no cluster credentials, so it asks a worker): each entry's size and namespace from its deployed
 * release, and its claim's phase and capacity from the cluster.
 */
import { storageObjectName } from '../../../charts/index.ts';
import { NotFoundError } from '../../core/errors.ts';
import type { StorageListPayload, StorageStatusPayload } from '../../jobs/schemas/storage.ts';
import type { Cluster } from '../cluster.ts';
import type { Handler } from '../handler.ts';
import { claimState, deployedEntry, deployedEntryNames, readClaim } from './storage-entry.ts';

async function statusOf(cluster: Cluster, name: string) {
  const values = await deployedEntry(cluster, name);
  if (!values) return undefined;
  const claim = claimState(await readClaim(cluster, values.namespace, name));
  return {
    entry: name,
    namespace: values.namespace,
    claim: storageObjectName(name),
    size: values.size,
    accessMode: values.accessMode,
    ...(values.hostPath !== undefined ? { hostPath: values.hostPath } : {}),
    ...claim,
  };
}

type EntryStatus = NonNullable<Awaited<ReturnType<typeof statusOf>>>;

function line(s: EntryStatus): string {
  const capacity = s.capacity ?? `${s.size} requested`;
  return `${s.entry}: ${s.phase}, ${capacity}, ${s.accessMode} (${s.namespace}/${s.claim}${s.hostPath ? `, hostPath ${s.hostPath}` : ''})`;
}

export const storageStatusHandler: Handler<StorageStatusPayload> = async (ctx) => {
  const cluster = await ctx.services.cluster();
  const status = await statusOf(cluster, ctx.payload.name);
  if (!status)
    throw new NotFoundError(
      `storage entry ${ctx.payload.name} does not exist (create it with storage:create)`,
    );
  return { summary: line(status), ...status };
};

export const storageListHandler: Handler<StorageListPayload> = async (ctx) => {
  const cluster = await ctx.services.cluster();
  const entries: EntryStatus[] = [];
  for (const name of deployedEntryNames(cluster)) {
    const status = await statusOf(cluster, name);
    if (status) entries.push(status);
  }
  for (const e of entries) await ctx.log(line(e));
  return { summary: `${entries.length} storage entr${entries.length === 1 ? 'y' : 'ies'}`, entries };
};
