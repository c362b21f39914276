/**
 * How the process commands change an AppSpec (pure, like mutations.ts): `ps:restart`, `ps:stop`,
 * `ps:start` and `resource:limit` / `resource:reserve`. A bad input is an InvalidInputError
 * naming the field, before anything is written.
 */
import { compareQuantities } from '../../rules/quantities.ts';
import { type FieldIssue, InvalidInputError } from '../core/errors.ts';
import { unknownScaleTypes } from '../jobs/app-processes.ts';
import type { PsPayload } from '../jobs/schemas/ps.ts';
import type { ResourcesPayload } from '../jobs/schemas/resources.ts';
import type { AppSpec, ProcessSpec } from './spec.ts';

type Resources = NonNullable<ProcessSpec['resources']>;

/** The process types a command names: the one given (which must exist), else every one. */
function targetTypes(spec: AppSpec, process: string | undefined, subject: string): string[] {
  const known = Object.keys(spec.processes).sort();
  if (process === undefined) return known;
  const issues = unknownScaleTypes(spec.app, [process], known).map((i) => ({ ...i, path: 'process' }));
  if (issues.length > 0) throw new InvalidInputError(issues, subject);
  return [process];
}

/**
 * `ps:restart`: the restart time on each targeted process type's pod template, as
 * `kubectl rollout restart` does it. Nothing to restart before the first deploy.
 */
export function applyRestart(spec: AppSpec, payload: Extract<PsPayload, { action: 'restart' }>): AppSpec {
  if (!spec.image)
    throw new InvalidInputError(
      [{ path: 'app', message: `app ${spec.app} has not been deployed: nothing to restart` }],
      'ps:restart',
    );
  const next = structuredClone(spec);
  for (const type of targetTypes(spec, payload.process, 'ps:restart'))
    next.processes[type]!.restartedAt = payload.at;
  return next;
}

/**
 * `ps:stop`: every process type to 0 replicas, the counts they had kept as `stoppedFormation`.
 * Stopping a stopped app keeps the formation it was stopped with (never zeros).
 */
export function applyStop(spec: AppSpec): AppSpec {
  const next = structuredClone(spec);
  const kept: Record<string, number> = { ...(spec.stoppedFormation ?? {}) };
  for (const [type, process] of Object.entries(next.processes)) {
    if (process.replicas > 0 || kept[type] === undefined) kept[type] = process.replicas;
    process.replicas = 0;
  }
  next.stoppedFormation = kept;
  return next;
}

/**
 * `ps:start`: the counts `ps:stop` kept, for the types the app still has (a type a deploy added
 * since keeps its own); a running app is left as it is.
 */
export function applyStart(spec: AppSpec): AppSpec {
  if (!spec.stoppedFormation) return spec;
  const next = structuredClone(spec);
  for (const [type, replicas] of Object.entries(spec.stoppedFormation)) {
    const process = next.processes[type];
    if (process) process.replicas = replicas;
  }
  delete next.stoppedFormation;
  return next;
}

/**
 * `resource:limit` / `resource:reserve`: sets (or with `clear`, removes) the limits or requests of
 * the targeted types. Refused when a request would be above its limit (the API server would refuse
 * the Deployment), naming the process type and the two values.
 */
export function applyResources(spec: AppSpec, payload: ResourcesPayload): AppSpec {
  const subject = `resource:${payload.kind}`;
  const next = structuredClone(spec);
  const issues: FieldIssue[] = [];
  for (const type of targetTypes(spec, payload.process, subject)) {
    const resources = changedResources(next.processes[type]!.resources ?? {}, payload);
    for (const [request, limit] of [
      ['cpu', 'cpuLimit'],
      ['memory', 'memoryLimit'],
    ] as const) {
      const r = resources[request];
      const l = resources[limit];
      if (r !== undefined && l !== undefined && (compareQuantities(r, l) ?? 0) > 0)
        issues.push({
          path: `processes.${type}.resources.${request}`,
          message: `the ${request === 'cpu' ? 'CPU' : 'memory'} request ${r} of ${type} would be above its limit ${l}`,
        });
    }
    if (Object.keys(resources).length > 0) next.processes[type]!.resources = resources;
    else delete next.processes[type]!.resources;
  }
  if (issues.length > 0) throw new InvalidInputError(issues, subject);
  return next;
}

function changedResources(current: Resources, payload: ResourcesPayload): Resources {
  const [cpuKey, memoryKey] =
    payload.kind === 'limit' ? (['cpuLimit', 'memoryLimit'] as const) : (['cpu', 'memory'] as const);
  const next: Resources = { ...current };
  if (payload.clear) {
    delete next[cpuKey];
    delete next[memoryKey];
    return next;
  }
  if (payload.cpu !== undefined) next[cpuKey] = payload.cpu;
  if (payload.memory !== undefined) next[memoryKey] = payload.memory;
  return next;
}
