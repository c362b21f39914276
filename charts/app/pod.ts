/**
 * Pieces every pod of an app shares, Deployments and CronJobs alike: the config Secret, the pull
 * secrets, the storage mounts and the config-digest annotation. Fields the API server drops when
 * they hold their zero value (`readOnly: false`) are left out, so a live object reads back exactly
 * as rendered and a redeploy sees no drift.
 */
import { configSecretName } from '../config/index.ts';
import { mergeUnder, unique } from '../records.ts';
import type { AppChartValues, MountValues } from './values.ts';

export const CONFIG_DIGEST_ANNOTATION = 'longshore.dev/config-digest';

/** The app's environment: the config release's Secret, optional so an app without config starts. */
export function envFrom(app: string): Record<string, unknown>[] {
  return [{ secretRef: { name: configSecretName(app), optional: true } }];
}

/** What `kubectl rollout restart` sets; a new value rolls the Deployment's pods. */
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';

/**
 * Pod template annotations: the config digest (a config change rolls pods) and, for a process
 * restarted with `ps:restart`, the restart time, over the user's.
 */
export function podAnnotations(
  values: AppChartValues,
  restartedAt?: string,
  user: Record<string, string> = values.annotations,
): Record<string, string> {
  return mergeUnder(
    {
      [CONFIG_DIGEST_ANNOTATION]: values.configDigest,
      ...(restartedAt !== undefined ? { [RESTARTED_AT_ANNOTATION]: restartedAt } : {}),
    },
    user,
  );
}

/**
 * The mounts of one pod: a process's Deployment gets the mounts of every process and its own; a
 * CronJob (`process` undefined: cron tasks are no process) only the mounts of every process.
 */
export function mountsOf(values: AppChartValues, process: string | undefined): MountValues[] {
  return values.mounts.filter((m) => m.process === undefined || m.process === process);
}

/** One volume per mounted storage entry, by name. */
export function volumes(mounts: readonly MountValues[]): Record<string, unknown>[] {
  const claims = new Map<string, string>();
  for (const m of mounts) claims.set(m.entry, m.claimName);
  return [...claims.keys()]
    .sort()
    .map((name) => ({ name, persistentVolumeClaim: { claimName: claims.get(name)! } }));
}

/** Mounts by path. */
export function volumeMounts(mounts: readonly MountValues[]): Record<string, unknown>[] {
  return [...mounts]
    .sort((a, b) => (a.mountPath < b.mountPath ? -1 : a.mountPath > b.mountPath ? 1 : 0))
    .map((m) => {
      const mount: Record<string, unknown> = { name: m.entry, mountPath: m.mountPath };
      if (m.subPath !== undefined) mount.subPath = m.subPath;
      if (m.readOnly) mount.readOnly = true;
      return mount;
    });
}

/**
 * The pod spec around `containers`: service account, pull secrets (exactly the given list, first
 * occurrence kept, so entries never accumulate; dokku#8531), volumes. Empty lists are left out.
 *
 * `enableServiceLinks: false`: the kubelet otherwise gives every container about seven variables
 * per Service of its namespace (`{SVC}_SERVICE_HOST`, `{SVC}_PORT_…`). All Dokku-style apps share
 * one namespace, so at 1,000 apps each process would start with ~7,000 variables naming other
 * apps, and past ~2,000 Services exec fails with E2BIG (kubernetes/kubernetes#84539, #121787);
 * a link can also shadow an app's own variable (a Service `redis` sets `REDIS_PORT=tcp://…`).
 * Apps reach each other by DNS name, which needs no variable.
 */
export function podSpec(
  values: AppChartValues,
  mounts: readonly MountValues[],
  containers: Record<string, unknown>[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    serviceAccountName: values.app,
    enableServiceLinks: false,
    ...extra,
  };
  const pullSecrets = unique(values.imagePullSecrets);
  if (pullSecrets.length > 0) spec.imagePullSecrets = pullSecrets.map((name) => ({ name }));
  spec.containers = containers;
  const vols = volumes(mounts);
  if (vols.length > 0) spec.volumes = vols;
  return spec;
}

/** Container fields shared by every process and cron task, in a fixed order. */
export function containerBase(
  name: string,
  values: AppChartValues,
  args: string[] | undefined,
): Record<string, unknown> {
  const container: Record<string, unknown> = { name, image: values.image };
  if (args !== undefined) container.args = args;
  container.envFrom = envFrom(values.app);
  return container;
}

/** volumeMounts, when there are any, to spread into a container. */
export function mountsField(mounts: readonly MountValues[]): Record<string, unknown> {
  const list = volumeMounts(mounts);
  return list.length > 0 ? { volumeMounts: list } : {};
}
