/**
 * The AppSpec: everything longshore knows about an app except its environment (which lives only in
 * the `config-{app}` release) and registry password (only in `pull-secret-{app}`). Kept as the
 * app record's settings in the system namespace; see docs/apps.md for which spec a job builds on.
 */
import { z } from 'zod';
import { autoscaling } from '../../rules/autoscaling.ts';
import { objectMetadata } from '../../rules/object-metadata.ts';
import { profileName } from '../../rules/placement.ts';
import { triggerAuthParameters } from '../../rules/trigger-auth.ts';
import {
  appName,
  cronSchedule,
  domainName,
  gitSha,
  imageRef,
  nonNegativeInt,
  portMap,
  processType,
  storageName,
} from '../jobs/schemas/common.ts';
import { healthchecks, processResources } from '../jobs/schemas/deploy.ts';
import { propertyValues } from '../jobs/schemas/properties.ts';

export const APP_SPEC_VERSION = 1;

const processSpec = z
  .object({
    command: z.string().min(1).max(4096).optional(),
    replicas: nonNegativeInt(1000),
    resources: processResources.optional(),
    healthchecks: healthchecks.optional(),
    /**
     * When `ps:restart` last restarted this process type: the pod-template annotation
     * `kubectl.kubernetes.io/restartedAt`, kept so later jobs render the same template.
     */
    restartedAt: z.iso.datetime().optional(),
    /** app.json `formation.<type>.max_parallel`: pods rolled at once (charts/app/rollout.ts). */
    maxParallel: z.number().int().min(1).max(1000).optional(),
    /**
     * app.json `formation.<type>.autoscaling`: while set, an autoscaler owns the type's replicas
     * (charts/app/autoscaler.ts) and `replicas` here is only the count before it took over.
     */
    autoscaling: autoscaling.optional(),
    /** `ps:set APP TYPE profile NAME`: the fleet placement profile its pods are placed by. */
    profile: profileName.optional(),
  })
  .strict();

export const cronTaskSpec = z
  .object({
    command: z.string().min(1).max(4096),
    schedule: cronSchedule,
    concurrencyPolicy: z.enum(['Allow', 'Forbid', 'Replace']),
    suspend: z.boolean(),
  })
  .strict();

const mountSpec = z
  .object({
    entry: storageName,
    mountPath: z.string().startsWith('/', 'must be an absolute path').max(4096),
    subPath: z.string().min(1).max(4096).optional(),
    readOnly: z.boolean(),
    /** Only this process type's Deployment mounts it (`--process`); absent: every process and cron task. */
    process: processType.optional(),
  })
  .strict();

export { RELEASE_PROCESS } from '../jobs/app-processes.ts';

export const releaseTaskSpec = z
  .object({
    command: z.string().trim().min(1).max(4096),
    /** Which file declared it: a deploy with that file and no release task drops it. */
    source: z.enum(['procfile', 'app.json']),
  })
  .strict();

/**
 * Properties as stored: the properties job's shape. A `null` in a properties job removes the key,
 * so stored specs never hold one; the schema is shared so both sides validate the same way.
 */
const storedProperties = propertyValues;

export const appSpec = z
  .object({
    version: z.literal(APP_SPEC_VERSION),
    app: appName,
    /** Absent until the first deploy names one: the app release is not installed without it. */
    image: imageRef.optional(),
    source: z
      .object({ sha: gitSha, ref: z.string().min(1).max(1024), pusher: z.string().min(1).max(256) })
      .strict()
      .optional(),
    processes: z.record(processType, processSpec),
    /**
     * The release task (Procfile `release`, or app.json `scripts.dokku.predeploy`): run as a Job
     * before each deploy's app release (src/workers/deploy/release-task.ts), never a Deployment.
     */
    release: releaseTaskSpec.optional(),
    /**
     * The postdeploy task (app.json `scripts.dokku.postdeploy`): run as a Job after a deploy's
     * rollout of a new revision (src/workers/deploy/postdeploy-task.ts).
     */
    postdeploy: z
      .object({ command: z.string().trim().min(1).max(4096) })
      .strict()
      .optional(),
    cron: z.array(cronTaskSpec).max(100),
    /** Task id → CronJob name suffix, assigned once and reused (stable CronJob names). */
    cronSuffixes: z.record(z.string(), z.string().regex(/^[a-z0-9]{8}$/)),
    domains: z.array(domainName),
    ports: z.array(portMap),
    mounts: z.array(mountSpec),
    properties: storedProperties,
    /** Registry credentials were given (the password is only in the `pull-secret-{app}` release). */
    registry: z
      .object({ server: z.string().min(1), username: z.string().min(1) })
      .strict()
      .optional(),
    /** Set by `ps:stop`: the replicas each process type had, which `ps:start` brings back. */
    stoppedFormation: z.record(processType, nonNegativeInt(1000)).optional(),
    /** Digest of the environment the pods were last rolled with (`config --no-restart` keeps it). */
    configDigest: z.string(),
    /** `labels:set` / `annotations:set`: scoped by process type and resource type; absent: none. */
    metadata: objectMetadata.optional(),
    /**
     * `autoscaling-auth:set`: KEDA trigger type → the parameter names it has authentication for.
     * The values live only in the `autoscaling-auth-{app}` release's Secrets; absent: none.
     */
    autoscalingAuth: triggerAuthParameters.optional(),
  })
  .strict();

export type AppSpec = z.infer<typeof appSpec>;
export type ProcessSpec = AppSpec['processes'][string];
export type CronTaskSpec = z.infer<typeof cronTaskSpec>;
export type AppProperties = AppSpec['properties'];

/** The spec of an app nothing has been accepted for yet. */
export function emptySpec(app: string): AppSpec {
  return {
    version: APP_SPEC_VERSION,
    app,
    processes: {},
    cron: [],
    cronSuffixes: {},
    domains: [],
    ports: [],
    mounts: [],
    properties: {},
    configDigest: '',
  };
}
