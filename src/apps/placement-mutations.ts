/**
 * How `labels:set` / `annotations:set` (the `metadata` job) and `ps:set APP TYPE profile NAME`
 * change an AppSpec. Pure, like mutations.ts; a bad input is an InvalidInputError naming the flag.
 * Whether a profile exists is the worker's question (Redis), asked before this runs.
 */
import { type MetadataEntry, scopeId } from '../../rules/object-metadata.ts';
import { InvalidInputError } from '../core/errors.ts';
import { unknownScaleTypes } from '../jobs/app-processes.ts';
import type { MetadataPayload } from '../jobs/schemas/metadata.ts';
import type { PsPayload } from '../jobs/schemas/ps.ts';
import type { AppSpec } from './spec.ts';

/** Sorted by scope, so the spec (and the chart values) never depend on the order of changes. */
function sortedEntries(list: MetadataEntry[]): MetadataEntry[] {
  return [...list].sort((a, b) => (scopeId(a) < scopeId(b) ? -1 : scopeId(a) > scopeId(b) ? 1 : 0));
}

export function applyMetadata(spec: AppSpec, payload: MetadataPayload): AppSpec {
  // A process type the app does not have is refused like a scale of it (it would label nothing).
  if (payload.processType !== undefined && Object.keys(spec.processes).length > 0) {
    const issues = unknownScaleTypes(spec.app, [payload.processType], Object.keys(spec.processes));
    if (issues.length > 0)
      throw new InvalidInputError(
        issues.map((i) => ({ ...i, path: '--process-type' })),
        `${payload.kind}s:${payload.action}`,
      );
  }
  const next = structuredClone(spec);
  const metadata = next.metadata ?? { labels: [], annotations: [] };
  const field = payload.kind === 'label' ? 'labels' : 'annotations';
  const scope: MetadataEntry = {
    key: payload.key,
    value: payload.value ?? '',
    ...(payload.processType !== undefined ? { processType: payload.processType } : {}),
    ...(payload.resourceType !== undefined ? { resourceType: payload.resourceType } : {}),
  };
  const kept = metadata[field].filter((e) => scopeId(e) !== scopeId(scope));
  metadata[field] = sortedEntries(payload.action === 'set' ? [...kept, scope] : kept);
  if (metadata.labels.length === 0 && metadata.annotations.length === 0) delete next.metadata;
  else next.metadata = metadata;
  return next;
}

export function applyProcessProfile(spec: AppSpec, payload: Extract<PsPayload, { action: 'set' }>): AppSpec {
  const issues = unknownScaleTypes(spec.app, [payload.process], Object.keys(spec.processes));
  if (issues.length > 0)
    throw new InvalidInputError(
      issues.map((i) => ({ ...i, path: 'TYPE' })),
      'ps:set',
    );
  const next = structuredClone(spec);
  const process = next.processes[payload.process]!;
  if (payload.value === null) delete process.profile;
  else process.profile = payload.value;
  return next;
}

/** The profiles an app's processes use, sorted. */
export function profilesOf(spec: AppSpec): string[] {
  return [...new Set(Object.values(spec.processes).flatMap((p) => (p.profile ? [p.profile] : [])))].sort();
}
