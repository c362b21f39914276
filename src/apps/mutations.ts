/**
 * How each job changes an AppSpec. Pure: the spec a job builds on goes in, the spec to deploy comes
 * out, or an InvalidInputError naming the problem (before anything is written). Lists are kept
 * sorted and deduplicated so equal specs render equal objects.
 */

import { InvalidInputError } from '../core/errors.ts';
import { autoscaledScaleIssue, unknownFormationTypes, unknownScaleTypes } from '../jobs/app-processes.ts';
import type { DeployPayload } from '../jobs/schemas/deploy.ts';
import type { DomainsPayload } from '../jobs/schemas/domains.ts';
import type { ListAction } from '../jobs/schemas/list-change.ts';
import type { MountsPayload } from '../jobs/schemas/mounts.ts';
import type { PortsPayload } from '../jobs/schemas/ports.ts';
import type { PropertiesPayload } from '../jobs/schemas/properties.ts';
import type { ScalePayload } from '../jobs/schemas/scale.ts';
import { assignCronSuffixes } from './cron-tasks.ts';
import { type AppSpec, type ProcessSpec, RELEASE_PROCESS } from './spec.ts';

/** Replicas of a process type seen for the first time: Dokku starts one `web` and nothing else. */
export function defaultReplicas(type: string): number {
  return type === 'web' ? 1 : 0;
}

/**
 * A deploy sets the image and source. Processes, when the deploy carries them (a Procfile),
 * replace the process set: that is the only way a process type is removed. Replicas, resources
 * and probes of types that already existed carry over. app.json `formation` then sets replicas and
 * `healthchecks` sets probes, of types in that set only: a formation or healthcheck naming a type
 * the app does not have is refused (it used to create that type and, without a Procfile, drop the
 * others). Cron tasks, when given, replace the list. Domains it names are added or removed; the
 * app's others stay.
 */
export function applyDeploy(spec: AppSpec, payload: DeployPayload): AppSpec {
  const next = structuredClone(spec);
  next.image = payload.image;
  if (payload.source) next.source = payload.source;
  else delete next.source;
  next.processes = processSetOf(spec, payload);
  const release = releaseTaskOf(spec, payload);
  if (release) next.release = release;
  else delete next.release;
  // app.json is the only file that declares a postdeploy task: one without it drops the app's.
  if (typeof payload.postdeploy === 'string') next.postdeploy = { command: payload.postdeploy };
  else if (payload.postdeploy === null) delete next.postdeploy;
  // `release` is the release task, never a Deployment (a payload or spec from before it was).
  delete next.processes[RELEASE_PROCESS];
  refuseUnknownTypes(spec.app, next.processes, payload);
  for (const [type, { replicas, maxParallel, autoscaling }] of Object.entries(payload.formation ?? {})) {
    const process = next.processes[type]!;
    if (replicas !== undefined) process.replicas = replicas;
    // max_parallel is the file's: an entry without it returns the type to the default rollout.
    if (maxParallel !== undefined) process.maxParallel = maxParallel;
    else delete process.maxParallel;
    // So is autoscaling: an entry without it returns the type to its fixed replica count.
    if (autoscaling !== undefined) process.autoscaling = structuredClone(autoscaling);
    else delete process.autoscaling;
  }
  if (payload.healthchecks) {
    for (const [type, process] of Object.entries(next.processes)) {
      const probes = payload.healthchecks[type];
      if (probes && Object.keys(probes).length > 0) process.healthchecks = probes;
      else delete process.healthchecks;
    }
  }
  if (payload.cron) {
    next.cron = payload.cron.map((t) => ({
      command: t.command,
      schedule: t.schedule,
      concurrencyPolicy: t.concurrencyPolicy,
      suspend: t.suspend,
    }));
  }
  next.cronSuffixes = assignCronSuffixes(next.app, next.cron, spec.cronSuffixes);
  if (payload.registry)
    next.registry = { server: payload.registry.server, username: payload.registry.username };
  else if (payload.registry === null) delete next.registry;
  if (payload.domains) {
    const changes = Object.entries(payload.domains);
    const added = changes.filter(([, change]) => change === 'add').map(([domain]) => domain);
    const removed = changes.filter(([, change]) => change === 'remove').map(([domain]) => domain);
    next.domains = changeList(changeList(spec.domains, 'add', added), 'remove', removed);
  }
  return next;
}

/**
 * The release task after a deploy: what its Procfile or app.json declares; a file given without
 * one drops the task that file declared; a file not given keeps it. A `release` line in the
 * payload's processes (a payload built before the release phase, `jobs:enqueue`) is the Procfile's.
 */
function releaseTaskOf(spec: AppSpec, payload: DeployPayload): AppSpec['release'] {
  const procfile = payload.release?.procfile ?? payload.processes?.[RELEASE_PROCESS]?.command;
  const predeploy = payload.release?.predeploy;
  if (typeof procfile === 'string' && typeof predeploy === 'string')
    throw new InvalidInputError([
      {
        path: 'release',
        message:
          'both the Procfile (release) and app.json (scripts.dokku.predeploy) declare a release task; keep one',
      },
    ]);
  if (typeof procfile === 'string') return { command: procfile, source: 'procfile' };
  if (typeof predeploy === 'string') return { command: predeploy, source: 'app.json' };
  const before = spec.release ?? legacyRelease(spec);
  if (!before) return undefined;
  const procfileGiven = payload.processes !== undefined || payload.release?.procfile === null;
  if (before.source === 'procfile' && procfileGiven) return undefined;
  if (before.source === 'app.json' && payload.release?.predeploy === null) return undefined;
  return before;
}

/** A spec saved when a Procfile's `release` line was a 0-replica Deployment. */
function legacyRelease(spec: AppSpec): AppSpec['release'] {
  const command = spec.processes[RELEASE_PROCESS]?.command;
  return command ? { command, source: 'procfile' } : undefined;
}

/** The process types a deploy runs: the Procfile's when it carries one, else the app's own. */
function processSetOf(spec: AppSpec, payload: DeployPayload): Record<string, ProcessSpec> {
  if (!payload.processes) {
    // An image deployed without a Procfile runs its default command as `web`.
    if (Object.keys(spec.processes).length === 0) return { web: { replicas: defaultReplicas('web') } };
    return structuredClone(spec.processes);
  }
  const processes: Record<string, ProcessSpec> = {};
  for (const [type, given] of Object.entries(payload.processes)) {
    const before = spec.processes[type];
    const resources = given.resources ?? before?.resources;
    const healthchecks = given.healthchecks ?? before?.healthchecks;
    processes[type] = {
      ...(given.command ? { command: given.command } : {}),
      replicas: given.replicas ?? before?.replicas ?? defaultReplicas(type),
      ...(resources ? { resources: structuredClone(resources) } : {}),
      ...(healthchecks ? { healthchecks: structuredClone(healthchecks) } : {}),
      // Kept, so the deploy does not restart the pods a second time through a changed annotation.
      ...(before?.restartedAt ? { restartedAt: before.restartedAt } : {}),
      // The rollout and placement settings of a type stay with it across Procfile deploys.
      ...(before?.maxParallel !== undefined ? { maxParallel: before.maxParallel } : {}),
      ...(before?.autoscaling !== undefined ? { autoscaling: structuredClone(before.autoscaling) } : {}),
      ...(before?.profile !== undefined ? { profile: before.profile } : {}),
    };
  }
  return processes;
}

function refuseUnknownTypes(
  app: string,
  processes: Record<string, ProcessSpec>,
  payload: DeployPayload,
): void {
  const known = Object.keys(processes);
  const from = payload.processes ? 'procfile' : 'app';
  const issues = [
    ...unknownFormationTypes('formation', Object.keys(payload.formation ?? {}), known, from),
    ...unknownFormationTypes('healthchecks', Object.keys(payload.healthchecks ?? {}), known, from),
  ];
  if (issues.length > 0) throw new InvalidInputError(issues, `deploy of ${app}`);
}

/** Process types a deploy removes: those the app had that its Procfile no longer declares. */
export function removedProcessTypes(before: AppSpec, after: AppSpec): string[] {
  return Object.keys(before.processes)
    .filter((type) => !after.processes[type])
    .sort();
}

export function applyScale(spec: AppSpec, payload: ScalePayload): AppSpec {
  const issues = unknownScaleTypes(spec.app, Object.keys(payload.processes), Object.keys(spec.processes));
  // An autoscaled type's replicas are its autoscaler's (charts/app/autoscaler.ts): a count set
  // here would never be written, and would be undone by the autoscaler if it were.
  for (const type of Object.keys(payload.processes).sort())
    if (spec.processes[type]?.autoscaling) issues.push(autoscaledScaleIssue(spec.app, type));
  if (issues.length > 0) throw new InvalidInputError(issues, 'scale');
  const next = structuredClone(spec);
  for (const [type, replicas] of Object.entries(payload.processes)) next.processes[type]!.replicas = replicas;
  return next;
}

function changeList(current: string[], action: ListAction, items: string[]): string[] {
  switch (action) {
    case 'add':
      return [...new Set([...current, ...items])].sort();
    case 'remove':
      return current.filter((c) => !items.includes(c));
    case 'set':
      return [...new Set(items)].sort();
    case 'clear':
      return [];
  }
}

export function applyDomains(spec: AppSpec, payload: DomainsPayload): AppSpec {
  return { ...structuredClone(spec), domains: changeList(spec.domains, payload.action, payload.domains) };
}

export function applyPorts(spec: AppSpec, payload: PortsPayload): AppSpec {
  return { ...structuredClone(spec), ports: changeList(spec.ports, payload.action, payload.ports) };
}

/** Sets each named property; `null` removes it (back to the default). */
export function applyProperties(spec: AppSpec, payload: PropertiesPayload): AppSpec {
  const properties: Record<string, unknown> = { ...spec.properties };
  for (const [key, value] of Object.entries(payload.set)) {
    if (value === null || value === undefined) delete properties[key];
    else properties[key] = value;
  }
  return { ...structuredClone(spec), properties: properties as AppSpec['properties'] };
}

/**
 * Mounts an entry at a path (into every process and cron task, or with `process` into that
 * process's Deployment only), or unmounts the entry from that path. Mounting what is already
 * mounted there replaces its options (sub-path, read-only, process), so a retried job is a no-op;
 * a path another entry is mounted at in the same containers is refused, and so is a process type
 * the app does not have. Unmounting what is not mounted changes nothing. Mounts are kept sorted by
 * path, then process.
 */
export function applyMounts(spec: AppSpec, payload: MountsPayload): AppSpec {
  const { entry, mountPath, subPath, readOnly, process } = payload.mount;
  const others = spec.mounts.filter((m) => !(m.entry === entry && m.mountPath === mountPath));
  if (payload.action === 'unmount') return { ...structuredClone(spec), mounts: structuredClone(others) };
  const subject = `storage:mount ${spec.app}`;
  const known = Object.keys(spec.processes).sort();
  if (process !== undefined && known.length > 0 && !known.includes(process)) {
    throw new InvalidInputError(
      [
        {
          path: 'mount.process',
          message: `app ${spec.app} has no process type "${process}" (it has ${known.join(', ')})`,
        },
      ],
      subject,
    );
  }
  const taken = others.find(
    (m) =>
      m.mountPath === mountPath &&
      (m.process === undefined || process === undefined || m.process === process),
  );
  if (taken) {
    throw new InvalidInputError(
      [
        {
          path: 'mount.mountPath',
          message: `${mountPath} is already the mount path of entry ${taken.entry}`,
        },
      ],
      subject,
    );
  }
  const mounts = [
    ...structuredClone(others),
    {
      entry,
      mountPath,
      ...(subPath !== undefined ? { subPath } : {}),
      readOnly,
      ...(process !== undefined ? { process } : {}),
    },
  ].sort((a, b) => compareText(a.mountPath, b.mountPath) || compareText(a.process ?? '', b.process ?? ''));
  return { ...structuredClone(spec), mounts };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
