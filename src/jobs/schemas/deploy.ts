import { z } from 'zod';
import { autoscaling } from '../../../rules/autoscaling.ts';
import { defineContract } from '../contract.ts';
import {
  appName,
  cpuQuantity,
  cronSchedule,
  domainName,
  envKey,
  gitSha,
  imageRef,
  nonNegativeInt,
  processType,
  quantity,
} from './common.ts';
import { sealedValue } from './sealed-value.ts';

const probe = z
  .object({
    type: z.enum(['http', 'tcp', 'exec']),
    path: z.string().startsWith('/', 'must start with "/"').max(2048).optional(),
    port: z.number().int().min(1).max(65_535).optional(),
    command: z.array(z.string().min(1)).min(1).optional(),
    initialDelaySeconds: nonNegativeInt(3600).optional(),
    periodSeconds: z.number().int().min(1).max(3600).optional(),
    timeoutSeconds: z.number().int().min(1).max(3600).optional(),
    failureThreshold: z.number().int().min(1).max(100).optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.type === 'http' && !p.path)
      ctx.addIssue({ code: 'custom', path: ['path'], message: 'is required for an http probe' });
    if (p.type === 'exec' && !p.command) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'is required for an exec probe' });
    }
  });

export const healthchecks = z
  .object({ startup: probe.optional(), readiness: probe.optional(), liveness: probe.optional() })
  .strict();

/** CPU and memory requests and limits of a process type. */
export const processResources = z
  .object({
    cpu: cpuQuantity.optional(),
    memory: quantity.optional(),
    cpuLimit: cpuQuantity.optional(),
    memoryLimit: quantity.optional(),
  })
  .strict();

const processSpec = z
  .object({
    command: z.string().min(1).max(4096).optional(),
    replicas: nonNegativeInt(1000).optional(),
    resources: processResources.optional(),
    healthchecks: healthchecks.optional(),
  })
  .strict();

const releaseCommand = z.string().trim().min(1, 'must not be empty').max(4096);

const cronTask = z
  .object({
    command: z.string().min(1).max(4096),
    schedule: cronSchedule,
    concurrencyPolicy: z.enum(['Allow', 'Forbid', 'Replace']).default('Forbid'),
    suspend: z.boolean().default(false),
  })
  .strict();

/** As many as `domains:add` takes in one job. */
const MAX_DOMAIN_CHANGES = 100;

export const deployPayload = z
  .object({
    app: appName,
    image: imageRef,
    source: z
      .object({
        sha: gitSha,
        ref: z.string().min(1).max(1024),
        pusher: z.string().min(1).max(256),
      })
      .strict()
      .optional(),
    /**
     * The process set (from a Procfile): these types replace the app's, and a type the app had
     * that is not here is removed (its Deployment deleted). Absent keeps the app's processes —
     * the only way to remove a process type is a deploy whose Procfile lacks it.
     */
    processes: z.record(processType, processSpec).optional(),
    /**
     * app.json `formation`: replicas of process types the app has (or that `processes` declares);
     * naming any other type refuses the deploy, even without a quantity. Types not named, or named
     * without `replicas`, keep their replicas.
     */
    formation: z
      .record(
        processType,
        z
          .object({
            replicas: nonNegativeInt(1000).optional(),
            /** `max_parallel`: pods rolled at once (the Deployment's rolling update); absent clears it. */
            maxParallel: z.number().int().min(1).max(1000).optional(),
            /** `autoscaling`: the type's autoscaler (charts/app/autoscaler.ts); absent removes it. */
            autoscaling: autoscaling.optional(),
          })
          .strict(),
      )
      .optional(),
    /**
     * app.json `healthchecks`, when the file has that key: the probes of every process type (a type
     * not named has none). Absent keeps the probes the app has. Types must be the app's, as above.
     */
    healthchecks: z.record(processType, healthchecks).optional(),
    cron: z.array(cronTask).max(100, 'must have at most 100 cron tasks').optional(),
    /**
     * The release task the deploy's files declare (docs/apps.md, "The release phase"): `procfile`
     * when the deploy has a Procfile (its `release` command, or `null`: it has none), `predeploy`
     * when it has an app.json (`scripts.dokku.predeploy`, or `null`). A file not given leaves what
     * it declared before; at most one of the two may declare a task.
     */
    release: z
      .object({
        procfile: releaseCommand.nullable().optional(),
        predeploy: releaseCommand.nullable().optional(),
      })
      .strict()
      .refine((r) => !(typeof r.procfile === 'string' && typeof r.predeploy === 'string'), {
        message:
          'both the Procfile (release) and app.json (scripts.dokku.predeploy) declare a release task; keep one',
      })
      .optional(),
    /**
     * app.json's postdeploy task (`scripts.dokku.postdeploy`, docs/apps.md "Postdeploy") when the
     * deploy has an app.json: the command, or `null` when it has none (the app's is dropped).
     * Absent (no app.json) keeps the app's.
     */
    postdeploy: releaseCommand.nullable().optional(),
    /**
     * Registry credentials for `pull-secret-{app}` (the password sealed); `null` forgets them and
     * uninstalls that release; absent keeps whatever the app has.
     */
    registry: z
      .object({
        server: z.string().min(1).max(253),
        username: z.string().min(1).max(256),
        password: sealedValue,
      })
      .strict()
      .nullable()
      .optional(),
    /**
     * Environment changes released with this deploy, in its `config-{app}` release: a sealed value
     * (bound to `config:{app}:{KEY}`, as `config:set`'s) sets the variable, `null` unsets it, and a
     * variable not named keeps its value. One job and one rollout for a new image and new config.
     * A record rather than set/unset lists, so supersession (docs/ordering.md) sees which variables
     * a deploy touches, key by key.
     */
    env: z.record(envKey, sealedValue.nullable()).optional(),
    /**
     * Domains added or removed with this deploy (one Ingress each); the app's other domains stay.
     * A record for the same reason as `env`.
     */
    domains: z
      .record(domainName, z.enum(['add', 'remove']))
      .refine((d) => Object.keys(d).length <= MAX_DOMAIN_CHANGES, {
        message: `must name at most ${MAX_DOMAIN_CHANGES} domains`,
      })
      .optional(),
    /**
     * app.json keys the deploy does not act on (`env`, `formation.web.autoscaling`…), found by the
     * producer that read the file: the worker warns about them once, in the deploy's log and result.
     */
    appJsonUnsupported: z.array(z.string().min(1).max(256)).max(200).optional(),
  })
  .strict();

export type DeployPayload = z.infer<typeof deployPayload>;

export const deployContract = defineContract<DeployPayload>({
  type: 'deploy',
  summary: 'Deploy an image: config, pull-secret, storage and app releases, in that order',
  payload: deployPayload,
  lane: (p) => ({ kind: 'app', name: p.app }),
  supersedeKey: 'deploy',
  app: (p) => p.app,
  describe: (p) =>
    `deploy ${p.app} ${p.image}${p.source ? ` (${p.source.ref}@${p.source.sha.slice(0, 7)} by ${p.source.pusher})` : ''}${changesWith(p)}`,
});

/** ` with env GREETING, -OLD; domains -b.example.com`: names only, never a value. */
function changesWith(p: DeployPayload): string {
  const byName = ([a]: [string, unknown], [b]: [string, unknown]) => a.localeCompare(b);
  const env = Object.entries(p.env ?? {})
    .sort(byName)
    .map(([key, value]) => (value === null ? `-${key}` : key));
  const domains = Object.entries(p.domains ?? {})
    .sort(byName)
    .map(([d, change]) => `${change === 'add' ? '+' : '-'}${d}`);
  const parts = [
    env.length > 0 ? `env ${env.join(', ')}` : '',
    domains.length > 0 ? `domains ${domains.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? ` with ${parts.join('; ')}` : '';
}
