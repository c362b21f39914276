/**
 * How an AppSpec (plus its environment and the fleet's defaults) becomes the values of the app,
 * config and pull-secret charts. Pure; the deploy pipeline renders these before its first write,
 * so a spec that cannot render is refused with nothing written.
 */
import { createHash } from 'node:crypto';
import { type AppChartValues, storageObjectName } from '../../charts/index.ts';
import type { PlacementProfile } from '../../rules/placement.ts';
import { type FieldIssue, InvalidInputError } from '../core/errors.ts';
import { cronTaskId } from './cron-tasks.ts';
import { APP_DEFAULTS } from './defaults.ts';
import { releaseNames } from './releases.ts';
import { type AppSpec, RELEASE_PROCESS } from './spec.ts';

export function namespaceOf(spec: AppSpec): string {
  return spec.properties.namespace ?? APP_DEFAULTS.namespace;
}

/** sha256 of the environment (sorted keys): the pod template annotation that rolls pods on change. */
export function envDigest(env: Record<string, string>): string {
  const sorted = Object.fromEntries(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

/**
 * The pull secrets every pod of the app lists: the override property, else the app's own when it
 * has credentials — its own, or the fleet's for its registry (`globalPullSecret`).
 */
export function imagePullSecretsOf(spec: AppSpec, options: { globalPullSecret?: boolean } = {}): string[] {
  if (spec.properties.imagePullSecrets) return [spec.properties.imagePullSecrets];
  return spec.registry || options.globalPullSecret ? [releaseNames.pullSecret(spec.app)] : [];
}

function tlsOf(spec: AppSpec): AppChartValues['tls'] {
  if (!spec.properties.tlsIssuer) return null;
  return {
    issuer: spec.properties.tlsIssuer,
    issuerKind: spec.properties.tlsIssuerKind ?? APP_DEFAULTS.tlsIssuerKind,
  };
}

/**
 * Port maps in effect: the app's own, or `http:80:5000` for a web process; with TLS on and no
 * https map, `https:443:<container>` is added beside the first http map (as Dokku does).
 */
export function portsOf(spec: AppSpec): string[] {
  const ports = spec.ports.length > 0 ? [...spec.ports] : spec.processes.web ? [APP_DEFAULTS.webPortMap] : [];
  if (tlsOf(spec) && !ports.some((p) => p.startsWith('https:'))) {
    const http = [...ports].sort().find((p) => p.startsWith('http:'));
    if (http) ports.push(`https:443:${http.split(':')[2]}`);
  }
  return [...new Set(ports)].sort();
}

/** Values of the app chart; the spec must have an image (the pipeline checks before calling). */
export function appChartValues(
  spec: AppSpec & { image: string },
  options: {
    globalPullSecret?: boolean;
    profiles?: Readonly<Record<string, PlacementProfile>>;
    /** Whether KEDA's ScaledObject is served (asked only when a process autoscales or has trigger auth). */
    keda?: boolean;
  } = {},
): AppChartValues {
  return {
    app: spec.app,
    namespace: namespaceOf(spec),
    image: spec.image,
    configDigest: spec.configDigest,
    imagePullSecrets: imagePullSecretsOf(spec, options),
    // The release task runs as a Job before the rollout (release-task.ts), never as a Deployment.
    processes: processValuesOf(spec, options.profiles ?? {}),
    ports: portsOf(spec),
    domains: [...spec.domains].sort(),
    tls: tlsOf(spec),
    ingressClass: spec.properties.ingressClass ?? APP_DEFAULTS.ingressClass,
    cron: spec.cron.map((task) => {
      const id = cronTaskId(task);
      const suffix = spec.cronSuffixes[id];
      if (!suffix)
        throw new Error(`cron task ${id} of ${spec.app} has no suffix (assignCronSuffixes was skipped)`);
      return { id, suffix, ...task };
    }),
    mounts: spec.mounts.map((m) => ({ ...m, claimName: storageObjectName(m.entry) })),
    labels: { ...(spec.properties.labels ?? {}) },
    annotations: { ...(spec.properties.annotations ?? {}) },
    ...(spec.metadata ? { metadata: structuredClone(spec.metadata) } : {}),
    ...(options.keda !== undefined ? { keda: options.keda } : {}),
    ...(spec.autoscalingAuth ? { autoscalingAuth: structuredClone(spec.autoscalingAuth) } : {}),
  };
}

/**
 * The processes as the chart takes them: a process's profile name becomes the profile's contents
 * (its pods' nodeSelector and tolerations). A profile that does not exist is refused before any
 * write, naming the process and the profile.
 */
function processValuesOf(
  spec: AppSpec,
  profiles: Readonly<Record<string, PlacementProfile>>,
): AppChartValues['processes'] {
  const out: AppChartValues['processes'] = {};
  const issues: FieldIssue[] = [];
  for (const [type, process] of Object.entries(spec.processes)) {
    if (type === RELEASE_PROCESS) continue;
    const { profile, ...rest } = structuredClone(process);
    if (profile === undefined) {
      out[type] = rest;
      continue;
    }
    const placement = profiles[profile];
    if (!placement) {
      issues.push({
        path: `processes.${type}.profile`,
        message: `placement profile "${profile}" does not exist (profiles:list shows them; profiles:set ${profile} … creates it, ps:set ${spec.app} ${type} profile detaches it)`,
      });
      continue;
    }
    out[type] = { ...rest, placement: structuredClone(placement) };
  }
  if (issues.length > 0) throw new InvalidInputError(issues, `app ${spec.app}`);
  return out;
}
