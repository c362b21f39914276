/** ObjectMeta as every chart writes it: annotations only when there are some, keys sorted. */
import { sortRecord } from './records.ts';
import type { RenderedObject } from './types.ts';

export function objectMeta(
  name: string,
  namespace: string,
  labels: Record<string, string>,
  annotations: Record<string, string> = {},
): RenderedObject['metadata'] {
  const meta: RenderedObject['metadata'] = { name, namespace, labels: sortRecord(labels) };
  if (Object.keys(annotations).length > 0) meta.annotations = sortRecord(annotations);
  return meta;
}
