/**
 * The user's labels and annotations of one object: the app-wide ones (`properties:set labels`,
 * every object) under the scoped ones (`labels:set … --process-type T --resource-type R`, only
 * objects of that resource type and process; rules/object-metadata.ts). The chart's own keys are
 * merged over these by the caller (mergeUnder), so no user entry ever replaces one of them.
 */
import { metadataFor, type ResourceType } from '../../rules/object-metadata.ts';
import type { AppChartValues } from './values.ts';

export function labelsFor(
  values: AppChartValues,
  resource: ResourceType,
  process: string | undefined,
): Record<string, string> {
  return { ...values.labels, ...metadataFor(values.metadata?.labels ?? [], resource, process) };
}

export function annotationsFor(
  values: AppChartValues,
  resource: ResourceType,
  process: string | undefined,
): Record<string, string> {
  return { ...values.annotations, ...metadataFor(values.metadata?.annotations ?? [], resource, process) };
}
