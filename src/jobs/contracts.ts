/** The registry of job contracts, by job type. */
import type { JobContract, JobType } from './contract.ts';
import { countsAsNewerWork, isJobType, JOB_TYPES } from './contract.ts';
import { autoscalingAuthContract } from './schemas/autoscaling-auth.ts';
import { configContract } from './schemas/config.ts';
import { configReadContract } from './schemas/config-read.ts';
import { deployContract } from './schemas/deploy.ts';
import { destroyContract } from './schemas/destroy.ts';
import { domainsContract } from './schemas/domains.ts';
import { dryRunContract } from './schemas/dry-run.ts';
import { logsContract } from './schemas/logs.ts';
import { metadataContract } from './schemas/metadata.ts';
import { mountsContract } from './schemas/mounts.ts';
import { portsContract } from './schemas/ports.ts';
import { profilesContract } from './schemas/profiles.ts';
import { propertiesContract } from './schemas/properties.ts';
import { pruneContract } from './schemas/prune.ts';
import { psContract } from './schemas/ps.ts';
import { reconcileContract } from './schemas/reconcile.ts';
import { registryLoginContract, registryLogoutContract } from './schemas/registry.ts';
import { releasesContract } from './schemas/releases.ts';
import { renameContract } from './schemas/rename.ts';
import { reportContract } from './schemas/report.ts';
import { resourcesContract } from './schemas/resources.ts';
import { rollbackContract } from './schemas/rollback.ts';
import { runContract } from './schemas/run.ts';
import { scaleContract } from './schemas/scale.ts';
import {
  storageCreateContract,
  storageDestroyContract,
  storageListContract,
  storageStatusContract,
} from './schemas/storage.ts';
import { syncContract } from './schemas/sync.ts';

const contracts: { [K in JobType]: JobContract<never> } = {
  deploy: deployContract as JobContract<never>,
  config: configContract as JobContract<never>,
  'config-read': configReadContract as JobContract<never>,
  scale: scaleContract as JobContract<never>,
  domains: domainsContract as JobContract<never>,
  ports: portsContract as JobContract<never>,
  properties: propertiesContract as JobContract<never>,
  rename: renameContract as JobContract<never>,
  destroy: destroyContract as JobContract<never>,
  prune: pruneContract as JobContract<never>,
  sync: syncContract as JobContract<never>,
  reconcile: reconcileContract as JobContract<never>,
  'storage-create': storageCreateContract as JobContract<never>,
  'storage-destroy': storageDestroyContract as JobContract<never>,
  'storage-status': storageStatusContract as JobContract<never>,
  run: runContract as JobContract<never>,
  mounts: mountsContract as JobContract<never>,
  'storage-list': storageListContract as JobContract<never>,
  releases: releasesContract as JobContract<never>,
  rollback: rollbackContract as JobContract<never>,
  ps: psContract as JobContract<never>,
  resources: resourcesContract as JobContract<never>,
  report: reportContract as JobContract<never>,
  logs: logsContract as JobContract<never>,
  'registry-login': registryLoginContract as JobContract<never>,
  'registry-logout': registryLogoutContract as JobContract<never>,
  'dry-run': dryRunContract as JobContract<never>,
  metadata: metadataContract as JobContract<never>,
  profiles: profilesContract as JobContract<never>,
  'autoscaling-auth': autoscalingAuthContract as JobContract<never>,
};

/** The contract of a job type; callers check `isJobType` first. */
export function contractFor(type: JobType): JobContract<unknown> {
  return contracts[type] as unknown as JobContract<unknown>;
}

export { countsAsNewerWork, isJobType };

/** Job types that are not newer work (reconcile, sync, storage-status, storage-list). */
export const NEUTRAL_TYPES: readonly JobType[] = JOB_TYPES.filter((t) => !countsAsNewerWork(t));

/**
 * The job types a supersession walk passes between two jobs of one type: the neutral ones but a
 * dry run, which shows the state the lane has at its place — skipping a deploy queued before it
 * for one queued after it would make the plan show a state the app never had there
 * (src/jobs/schemas/dry-run.ts).
 */
export const PASSABLE_TYPES: readonly JobType[] = NEUTRAL_TYPES.filter((t) => t !== 'dry-run');

/**
 * How the acquire script decides whether a job of this contract is superseded (see
 * docs/ordering.md): an operator change only by a newer job of its type with nothing but neutral
 * jobs between them (`adjacent`); a neutral job by the newest of its type, whatever lies between
 * (`any`). Empty for types that are never superseded.
 */
export function supersessionOf(contract: Pick<JobContract<unknown>, 'supersedeKey' | 'operatorChange'>): {
  supersedeKey?: string;
  supersedeRule?: 'any' | 'adjacent';
  passable?: readonly string[];
} {
  if (!contract.supersedeKey) return {};
  return contract.operatorChange === false
    ? { supersedeKey: contract.supersedeKey, supersedeRule: 'any' }
    : { supersedeKey: contract.supersedeKey, supersedeRule: 'adjacent', passable: PASSABLE_TYPES };
}
