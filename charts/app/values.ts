/**
 * Values of the app chart. Everything the API server would refuse is refused here (name shapes,
 * ports, quantities, duplicate mount paths, two maps on one Service port…), so a bad app fails
 * before its config release is written, with every problem listed at once.
 */
import { z } from 'zod';
import { processTypeProblem } from '../../rules/app-names.ts';
import { autoscaling, resourceTriggersOnly } from '../../rules/autoscaling.ts';
import { cronSchedule } from '../../rules/cron.ts';
import { hostname } from '../../rules/domains.ts';
import { dns1123Label } from '../../rules/name-schemas.ts';
import { objectMetadata } from '../../rules/object-metadata.ts';
import { placementProfile } from '../../rules/placement.ts';
import { portMap } from '../../rules/port-maps.ts';
import { isQuantity, resourceQuantity } from '../../rules/quantities.ts';
import { triggerAuthParameters } from '../../rules/trigger-auth.ts';
import { appName, namespaceName, objectName, userAnnotations, userLabels } from '../schemas.ts';
import { portMapConflict, sortedPortMaps } from './ports.ts';
import { requestAboveLimit } from './resources.ts';
import { ShellWordsError, splitShellWords } from './shell-words.ts';

const port = z
  .int('must be a whole number')
  .min(1, 'must be from 1 to 65535')
  .max(65_535, 'must be from 1 to 65535');
const seconds = (min: number) =>
  z.int('must be a whole number').min(min, `must be ${min} or more`).max(86_400, 'must be at most 86400');

/** A command line as a Procfile writes it: must split into at least one word. */
const shellCommand = z.string().superRefine((command, ctx) => {
  try {
    if (splitShellWords(command).length === 0) ctx.addIssue({ code: 'custom', message: 'is empty' });
  } catch (err) {
    if (!(err instanceof ShellWordsError)) throw err;
    ctx.addIssue({ code: 'custom', message: err.message });
  }
});

const probeValues = z
  .strictObject({
    type: z.enum(['http', 'tcp', 'exec']),
    path: z
      .string()
      .startsWith('/', 'must start with "/"')
      .max(2048, 'must be at most 2048 characters')
      .optional(),
    port: port.optional(),
    command: z.array(z.string()).min(1, 'must have at least one word').optional(),
    initialDelaySeconds: seconds(0).optional(),
    periodSeconds: seconds(1).optional(),
    timeoutSeconds: seconds(1).optional(),
    failureThreshold: z.int('must be a whole number').min(1, 'must be 1 or more').max(1000).optional(),
  })
  .superRefine((p, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (p.type === 'exec' && !p.command) issue('command', 'is required for an exec probe');
    if (p.type !== 'exec' && p.command) issue('command', `is only for exec probes, not ${p.type}`);
    if (p.type === 'exec' && p.port !== undefined) issue('port', 'is not used by an exec probe');
    if (p.type !== 'http' && p.path !== undefined) issue('path', `is only for http probes, not ${p.type}`);
  });

const healthchecks = z.strictObject({
  startup: probeValues.optional(),
  readiness: probeValues.optional(),
  liveness: probeValues.optional(),
});

const resources = z
  .strictObject({
    cpu: resourceQuantity.optional(),
    memory: resourceQuantity.optional(),
    cpuLimit: resourceQuantity.optional(),
    memoryLimit: resourceQuantity.optional(),
  })
  .superRefine((r, ctx) => {
    if (requestAboveLimit(r.cpu, r.cpuLimit)) {
      ctx.addIssue({ code: 'custom', path: ['cpu'], message: `${r.cpu} is above cpuLimit ${r.cpuLimit}` });
    }
    if (requestAboveLimit(r.memory, r.memoryLimit)) {
      ctx.addIssue({
        code: 'custom',
        path: ['memory'],
        message: `${r.memory} is above memoryLimit ${r.memoryLimit}`,
      });
    }
  });

const processValues = z.strictObject({
  /** Procfile command; absent runs the image's default command. */
  command: shellCommand.optional(),
  replicas: z.int('must be a whole number').min(0, 'must be 0 or more').max(2_147_483_647),
  resources: resources.optional(),
  healthchecks: healthchecks.optional(),
  /** Time of the last rolling restart (`kubectl.kubernetes.io/restartedAt` on the pod template). */
  restartedAt: z.string().min(1).max(64).optional(),
  /** Pods rolled at once (charts/app/rollout.ts); absent: Kubernetes' default strategy. */
  maxParallel: z.int('must be a whole number').min(1, 'must be 1 or more').max(1000).optional(),
  /** The placement profile's contents: the pods' nodeSelector and tolerations. */
  placement: placementProfile.optional(),
  /** The process's autoscaler (charts/app/autoscaler.ts); while set, `replicas` is not rendered. */
  autoscaling: autoscaling.optional(),
});

const processes = z.record(z.string(), processValues).superRefine((record, ctx) => {
  for (const type of Object.keys(record)) {
    const problem = processTypeProblem(type);
    if (problem) ctx.addIssue({ code: 'custom', path: [type], message: `is not a process type: ${problem}` });
  }
});

const tls = z.strictObject({
  issuer: objectName,
  issuerKind: z.enum(['Issuer', 'ClusterIssuer']),
});

const cronTask = z.strictObject({
  /** Stable identity of the task, kept across deploys; only its hash reaches a label. */
  id: z.string().min(1, 'is required'),
  /** Name suffix, reused across deploys so the CronJob keeps its name. */
  suffix: z.string().regex(/^[a-z0-9]{4,10}$/, 'must be 4 to 10 lowercase letters or digits'),
  command: shellCommand,
  schedule: cronSchedule,
  concurrencyPolicy: z.enum(['Allow', 'Forbid', 'Replace']),
  suspend: z.boolean(),
});

const mount = z.strictObject({
  /** Storage entry: the volume's name. */
  entry: dns1123Label(),
  claimName: objectName,
  mountPath: z.string().startsWith('/', 'must be an absolute path').max(4096),
  subPath: z
    .string()
    .min(1, 'must not be empty (leave it out to mount the whole volume)')
    .refine((p) => !p.startsWith('/'), 'must be a relative path')
    .refine((p) => !p.split('/').includes('..'), 'must not contain ".."')
    .optional(),
  readOnly: z.boolean(),
  /** Only this process's Deployment gets the mount; absent: every Deployment and CronJob. */
  process: z
    .string()
    .superRefine((type, ctx) => {
      const problem = processTypeProblem(type);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
});

export const appValues = z
  .strictObject({
    app: appName,
    namespace: namespaceName,
    image: z
      .string()
      .min(1, 'is required (an image reference)')
      .regex(/^\S+$/, 'must not contain whitespace'),
    /** Digest of the app's config; a change rolls every pod. */
    configDigest: z.string(),
    /** Secret names, kept in this order (duplicates dropped) on every pod. */
    imagePullSecrets: z.array(objectName),
    processes,
    ports: z.array(portMap),
    domains: z.array(hostname),
    tls: tls.nullable(),
    ingressClass: z.enum(['nginx', 'traefik']),
    cron: z.array(cronTask),
    mounts: z.array(mount),
    labels: userLabels,
    annotations: userAnnotations,
    /** Labels and annotations scoped by process type and resource type (charts/app/user-metadata.ts). */
    metadata: objectMetadata.optional(),
    /**
     * A cluster fact: whether KEDA's ScaledObject CRD is served. Autoscaled processes render a
     * ScaledObject with it, an `autoscaling/v2` HPA without (cpu/memory triggers only).
     */
    keda: z.boolean().optional(),
    /**
     * `autoscaling-auth:set`: trigger type → parameter names (values only in the autoscaling-auth
     * release's Secrets). With KEDA, a TriggerAuthentication each (charts/app/trigger-auth.ts).
     */
    autoscalingAuth: triggerAuthParameters.optional(),
  })
  .superRefine((values, ctx) => {
    const issue = (path: (string | number)[], message: string) =>
      ctx.addIssue({ code: 'custom', path, message });

    for (const [type, process] of Object.entries(values.processes)) {
      const scaling = process.autoscaling;
      if (!scaling) continue;
      const at = ['processes', type, 'autoscaling'];
      scaling.triggers.forEach((t, i) => {
        // KEDA's cpu and memory scalers take their target as metadata "value": a utilization
        // percentage, or a quantity with type AverageValue (kedacore/keda pkg/scalers/cpu_memory_scaler.go).
        if (t.type !== 'cpu' && t.type !== 'memory') return;
        const value = t.metadata.value ?? '';
        const average = t.metadata.type === 'AverageValue';
        if (average ? !isQuantity(value) : !/^[1-9][0-9]{0,5}$/.test(value))
          issue(
            [...at, 'triggers', i, 'metadata', 'value'],
            `must be ${average ? 'a Kubernetes quantity such as 500m or 512Mi' : 'a whole number above 0 (the target utilization, %)'} (the ${t.type} target); got ${JSON.stringify(value)}`,
          );
      });
      if (values.keda) continue;
      if (!resourceTriggersOnly(scaling)) {
        issue(
          at,
          `KEDA is not installed on this cluster (no ScaledObject CRD): trigger ${scaling.triggers
            .map((t) => t.type)
            .filter((t) => t !== 'cpu' && t !== 'memory')
            .join(', ')} needs it; only cpu and memory triggers fall back to a HorizontalPodAutoscaler`,
        );
        continue;
      }
      // An HPA scales to 0 only behind the HPAScaleToZero feature gate (k8s.io/kubernetes pkg/apis/autoscaling/validation).
      if (scaling.minReplicas < 1)
        issue(
          [...at, 'minReplicas'],
          'must be 1 or more without KEDA (a HorizontalPodAutoscaler does not scale to 0)',
        );
    }

    // Repeated maps are one map (a set), not a conflict.
    const conflict = portMapConflict(sortedPortMaps(values.ports));
    if (conflict) issue(['ports'], conflict);

    const suffixes = new Map<string, number>();
    const ids = new Map<string, number>();
    values.cron.forEach((task, i) => {
      const sameSuffix = suffixes.get(task.suffix);
      if (sameSuffix !== undefined) {
        issue(['cron', i, 'suffix'], `"${task.suffix}" is already the suffix of cron task ${sameSuffix}`);
      } else suffixes.set(task.suffix, i);
      const sameId = ids.get(task.id);
      if (sameId !== undefined)
        issue(['cron', i, 'id'], `"${task.id}" is already the id of cron task ${sameId}`);
      else ids.set(task.id, i);
    });

    const claims = new Map<string, string>();
    values.mounts.forEach((m, i) => {
      // Two mounts meet in a container when they share a path and a process (or either has none).
      const samePath = values.mounts.findIndex(
        (o, j) =>
          j < i &&
          o.mountPath === m.mountPath &&
          (o.process === undefined || m.process === undefined || o.process === m.process),
      );
      if (samePath >= 0)
        issue(['mounts', i, 'mountPath'], `${m.mountPath} is already mount ${samePath}'s path`);
      const claim = claims.get(m.entry);
      if (claim !== undefined && claim !== m.claimName) {
        issue(['mounts', i, 'claimName'], `entry ${m.entry} is already mounted from claim ${claim}`);
      } else claims.set(m.entry, m.claimName);
    });
  });

export type AppChartValues = z.infer<typeof appValues>;
export type ProcessValues = AppChartValues['processes'][string];
export type CronTaskValues = AppChartValues['cron'][number];
export type MountValues = AppChartValues['mounts'][number];
