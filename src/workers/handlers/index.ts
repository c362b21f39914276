/**
 * The handlers this build of the worker runs; a job type without one fails with a clear message.
 * `ps` and `resources` are spec changes like `scale` (src/apps/process-mutations.ts).
 */
import { applyDomains, applyPorts, applyProperties, applyScale } from '../../apps/mutations.ts';
import { applyMetadata, applyProcessProfile } from '../../apps/placement-mutations.ts';
import { applyResources, applyRestart, applyStart, applyStop } from '../../apps/process-mutations.ts';
import { InvalidInputError } from '../../core/errors.ts';
import { readProfiles } from '../../jobs/placement-profiles.ts';
import type { DomainsPayload } from '../../jobs/schemas/domains.ts';
import { describeScope, type MetadataPayload } from '../../jobs/schemas/metadata.ts';
import type { PortsPayload } from '../../jobs/schemas/ports.ts';
import type { PropertiesPayload } from '../../jobs/schemas/properties.ts';
import type { PsPayload } from '../../jobs/schemas/ps.ts';
import type { ReconcilePayload } from '../../jobs/schemas/reconcile.ts';
import { describeValues, type ResourcesPayload } from '../../jobs/schemas/resources.ts';
import type { ScalePayload } from '../../jobs/schemas/scale.ts';
import type { Handler } from '../handler.ts';
import { HandlerRegistry } from '../handler-registry.ts';
import { autoscalingAuthHandler } from './autoscaling-auth.ts';
import { configHandler } from './config.ts';
import { configReadHandler } from './config-read.ts';
import { deployHandler } from './deploy.ts';
import { destroyHandler } from './destroy.ts';
import { dryRunHandler } from './dry-run.ts';
import { logsHandler } from './logs.ts';
import { mountsHandler } from './mounts.ts';
import { profilesHandler } from './profiles.ts';
import { pruneHandler } from './prune.ts';
import { registryLoginHandler } from './registry-login.ts';
import { registryLogoutHandler } from './registry-logout.ts';
import { releasesHandler } from './releases.ts';
import { renameHandler } from './rename.ts';
import { reportHandler } from './report.ts';
import { rollbackHandler } from './rollback.ts';
import { runHandler } from './run.ts';
import { specChangeHandler } from './spec-change.ts';
import { storageCreateHandler } from './storage-create.ts';
import { storageDestroyHandler } from './storage-destroy.ts';
import { storageListHandler, storageStatusHandler } from './storage-status.ts';
import { syncHandler } from './sync.ts';

const psHandler = specChangeHandler<PsPayload>(
  (spec, p) =>
    p.action === 'restart'
      ? applyRestart(spec, p)
      : p.action === 'stop'
        ? applyStop(spec)
        : p.action === 'set'
          ? applyProcessProfile(spec, p)
          : applyStart(spec),
  (p) =>
    p.action === 'restart'
      ? `restarted ${p.process ?? 'every process type'} (restartedAt ${p.at})`
      : p.action === 'stop'
        ? 'stopped every process type'
        : p.action === 'set'
          ? p.value === null
            ? `placement profile of ${p.process} removed`
            : `placement profile of ${p.process}: ${p.value}`
          : 'started the formation kept by ps:stop',
);

export function defaultHandlers(): HandlerRegistry {
  const registry: HandlerRegistry = new HandlerRegistry()
    .register('sync', syncHandler)
    .register('prune', pruneHandler)
    .register('deploy', deployHandler)
    .register('config', configHandler)
    .register('config-read', configReadHandler)
    .register('destroy', destroyHandler)
    .register('rename', renameHandler)
    .register(
      'scale',
      specChangeHandler<ScalePayload>(
        applyScale,
        (p) =>
          `scaled ${Object.entries(p.processes)
            .map(([type, n]) => `${type}=${n}`)
            .join(' ')}`,
      ),
    )
    .register(
      'domains',
      specChangeHandler<DomainsPayload>(applyDomains, (p) =>
        `domains ${p.action} ${p.domains.join(' ')}`.trim(),
      ),
    )
    .register(
      'ports',
      specChangeHandler<PortsPayload>(applyPorts, (p) => `ports ${p.action} ${p.ports.join(' ')}`.trim()),
    )
    .register(
      'properties',
      specChangeHandler<PropertiesPayload>(
        applyProperties,
        (p) => `properties set ${Object.keys(p.set).join(', ')}`,
      ),
    )
    .register('mounts', mountsHandler)
    .register('storage-create', storageCreateHandler)
    .register('storage-destroy', storageDestroyHandler)
    .register('storage-status', storageStatusHandler)
    .register('storage-list', storageListHandler)
    .register('logs', logsHandler)
    .register('run', runHandler)
    .register('registry-login', registryLoginHandler)
    .register('registry-logout', registryLogoutHandler)
    .register(
      'reconcile',
      // A reconcile never creates an app: sync enqueues one for every app Redis has heard of.
      specChangeHandler<ReconcilePayload>(
        (spec) => spec,
        () => 'reconciled',
        { onlyKnownApps: true },
      ),
    )
    .register('releases', releasesHandler)
    .register('rollback', rollbackHandler)
    .register('report', reportHandler)
    .register('ps', (async (ctx) => {
      // ps:set profile: the profile must exist in the fleet (checked again by the pipeline's render).
      const p = ctx.payload;
      if (p.action === 'set' && p.value !== null) {
        const found = await readProfiles(ctx.services.redis, [p.value]);
        if (!found[p.value])
          throw new InvalidInputError(
            [
              {
                path: 'NAME',
                message: `placement profile "${p.value}" does not exist (profiles:list shows them)`,
              },
            ],
            'ps:set',
          );
      }
      return psHandler(ctx);
    }) satisfies Handler<PsPayload>)
    .register(
      'metadata',
      specChangeHandler<MetadataPayload>(
        applyMetadata,
        (p) =>
          `${p.kind} ${p.key}${p.action === 'set' ? ` set` : ' unset'}${describeScope(p) || ' (every object)'}`,
      ),
    )
    .register('profiles', profilesHandler)
    .register('autoscaling-auth', autoscalingAuthHandler)
    .register(
      'resources',
      specChangeHandler<ResourcesPayload>(
        applyResources,
        (p) =>
          `${p.kind === 'limit' ? 'limits' : 'requests'} of ${p.process ?? 'every process type'}: ${describeValues(p)}`,
      ),
    );
  // The handlers of the jobs a dry run stands for are this registry's own.
  return registry.register(
    'dry-run',
    dryRunHandler((type) => registry.get(type)),
  );
}
