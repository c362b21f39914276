/**
 * The hook the HTTP server and watch streams call: turn a get's object, a list or a watch
 * event's object into what the client negotiated (negotiate.ts): a Table, with the printer of
 * the object's kind (printers.ts), or the metadata only (partial-metadata.ts).
 */
import { groupVersion, type ResourceType } from '../resources.ts';
import type { KubeObject } from '../types.ts';
import type { Output } from './negotiate.ts';
import { partialAnswer, partialObjectMetadata } from './partial-metadata.ts';
import { printerFor } from './printers.ts';
import { buildTable, type IncludeObject, includeObjectOf, type Table } from './table.ts';

type ListBody = {
  items: KubeObject[];
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
};

const typed = (type: ResourceType, o: KubeObject): KubeObject => ({
  ...o,
  apiVersion: groupVersion(type),
  kind: type.kind,
});

/** A get's or a list's answer as a Table (k8s.io/apiserver's asTable). */
export function tableAnswer(
  type: ResourceType,
  body: unknown,
  query: URLSearchParams,
  now = Date.now(),
): Table {
  const include = includeObjectOf(query);
  const printer = printerFor(type);
  const b = body as KubeObject & Partial<ListBody>;
  if (Array.isArray(b.items)) {
    const m = b.metadata ?? {};
    return buildTable({
      printer,
      objects: b.items.map((o) => typed(type, o)),
      metadata: {
        ...(m.resourceVersion !== undefined ? { resourceVersion: m.resourceVersion } : {}),
        ...(m.continue ? { continue: m.continue } : {}),
        ...(m.remainingItemCount !== undefined ? { remainingItemCount: m.remainingItemCount } : {}),
      },
      include,
      now,
    });
  }
  return buildTable({
    printer,
    objects: [typed(type, b)],
    metadata:
      b.metadata?.resourceVersion !== undefined ? { resourceVersion: b.metadata.resourceVersion } : {},
    include,
    now,
  });
}

/**
 * For a Table watch: each event's object as a one-row Table, column definitions only on the
 * first (upstream's watch encoder sets NoHeaders after it); a bookmark as a Table with no rows.
 */
export function tableWatchEncoder(
  type: ResourceType,
  query: URLSearchParams,
): (eventType: string, object: KubeObject) => Table {
  const include: IncludeObject = includeObjectOf(query);
  const printer = printerFor(type);
  let first = true;
  return (eventType, object) => {
    const rv = object.metadata?.resourceVersion;
    const metadata = rv !== undefined ? { resourceVersion: rv } : {};
    if (eventType === 'BOOKMARK') {
      return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata, columnDefinitions: null, rows: [] };
    }
    const table = buildTable({
      printer,
      objects: [typed(type, object)],
      metadata,
      include,
      noHeaders: !first,
      now: Date.now(),
    });
    first = false;
    return table;
  };
}

/** A get's or list's answer in the negotiated output. */
export function convertRead(
  output: Output,
  type: ResourceType,
  body: unknown,
  query: URLSearchParams,
): unknown {
  if (output === 'table') return tableAnswer(type, body, query);
  if (output === 'partial' || output === 'partial-list') return partialAnswer(type, body, output);
  return body;
}

/** The watch encoder for the negotiated output; none for plain objects. */
export function watchEncoder(
  output: Output,
  type: ResourceType,
  query: URLSearchParams,
): ((eventType: string, object: KubeObject) => unknown) | undefined {
  if (output === 'table') return tableWatchEncoder(type, query);
  // A metadata informer asks for PartialObjectMetadataList; its events carry single objects.
  if (output === 'partial' || output === 'partial-list') return (_, object) => partialObjectMetadata(object);
  return undefined;
}
