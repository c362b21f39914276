/**
 * Each job type's contract, loaded on demand: a producer that submits one type (the CLI's
 * `config:set`) compiles and builds only that type's schemas, not every contract's (about a fifth
 * of such a call's start-up; docs/cli-startup.md). The same modules as the registry
 * (contracts.ts) imports, so a contract loaded here is the registry's own object
 * (test/unit/jobs/contract-loaders.test.ts).
 */
import type { JobContract, JobType } from './contract.ts';

const LOADERS: { [K in JobType]: () => Promise<JobContract<never>> } = {
  deploy: async () => (await import('./schemas/deploy.ts')).deployContract as JobContract<never>,
  config: async () => (await import('./schemas/config.ts')).configContract as JobContract<never>,
  'config-read': async () =>
    (await import('./schemas/config-read.ts')).configReadContract as JobContract<never>,
  scale: async () => (await import('./schemas/scale.ts')).scaleContract as JobContract<never>,
  domains: async () => (await import('./schemas/domains.ts')).domainsContract as JobContract<never>,
  ports: async () => (await import('./schemas/ports.ts')).portsContract as JobContract<never>,
  properties: async () => (await import('./schemas/properties.ts')).propertiesContract as JobContract<never>,
  rename: async () => (await import('./schemas/rename.ts')).renameContract as JobContract<never>,
  destroy: async () => (await import('./schemas/destroy.ts')).destroyContract as JobContract<never>,
  prune: async () => (await import('./schemas/prune.ts')).pruneContract as JobContract<never>,
  sync: async () => (await import('./schemas/sync.ts')).syncContract as JobContract<never>,
  reconcile: async () => (await import('./schemas/reconcile.ts')).reconcileContract as JobContract<never>,
  'storage-create': async () =>
    (await import('./schemas/storage.ts')).storageCreateContract as JobContract<never>,
  'storage-destroy': async () =>
    (await import('./schemas/storage.ts')).storageDestroyContract as JobContract<never>,
  'storage-status': async () =>
    (await import('./schemas/storage.ts')).storageStatusContract as JobContract<never>,
  run: async () => (await import('./schemas/run.ts')).runContract as JobContract<never>,
  mounts: async () => (await import('./schemas/mounts.ts')).mountsContract as JobContract<never>,
  'storage-list': async () =>
    (await import('./schemas/storage.ts')).storageListContract as JobContract<never>,
  releases: async () => (await import('./schemas/releases.ts')).releasesContract as JobContract<never>,
  rollback: async () => (await import('./schemas/rollback.ts')).rollbackContract as JobContract<never>,
  ps: async () => (await import('./schemas/ps.ts')).psContract as JobContract<never>,
  resources: async () => (await import('./schemas/resources.ts')).resourcesContract as JobContract<never>,
  report: async () => (await import('./schemas/report.ts')).reportContract as JobContract<never>,
  logs: async () => (await import('./schemas/logs.ts')).logsContract as JobContract<never>,
  'registry-login': async () =>
    (await import('./schemas/registry.ts')).registryLoginContract as JobContract<never>,
  'registry-logout': async () =>
    (await import('./schemas/registry.ts')).registryLogoutContract as JobContract<never>,
  'dry-run': async () => (await import('./schemas/dry-run.ts')).dryRunContract as JobContract<never>,
  metadata: async () => (await import('./schemas/metadata.ts')).metadataContract as JobContract<never>,
  profiles: async () => (await import('./schemas/profiles.ts')).profilesContract as JobContract<never>,
  'autoscaling-auth': async () =>
    (await import('./schemas/autoscaling-auth.ts')).autoscalingAuthContract as JobContract<never>,
};

/** The contract of a job type, importing only its own schema module. */
export async function loadContract(type: JobType): Promise<JobContract<unknown>> {
  return (await LOADERS[type]()) as unknown as JobContract<unknown>;
}
