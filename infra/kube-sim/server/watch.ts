/**
 * Watch streams: `?watch=1&resourceVersion=…&labelSelector=…&fieldSelector=…&timeoutSeconds=…`.
 * One JSON event per line. Without a resourceVersion (or "0") the stream starts with an ADDED per
 * existing object; with one, it replays history after it, or answers a single ERROR event
 * (410 Expired) when that history is gone. Objects moving into or out of a selector arrive as
 * ADDED or DELETED, as from the apiserver's watch cache.
 */
import type { ServerResponse } from 'node:http';
import { typeKey } from '../api/service.ts';
import { type FieldError, StatusError, statusErrors } from '../errors.ts';
import { groupVersion, type ResourceType } from '../resources.ts';
import { parseFieldSelector, parseLabelSelector } from '../selectors.ts';
import type { ObjectStore, StoreEvent } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';

export interface WatchOptions {
  type: ResourceType;
  namespace?: string;
  query: URLSearchParams;
  /** Default server-side timeout when the client sets none (upstream: 30–60 minutes). */
  defaultTimeoutSeconds: number;
  bookmarkIntervalMs: number;
  /** Re-encodes each event's object (a Table watch: printing/respond.ts); the object as is without. */
  encode?: (eventType: string, object: KubeObject) => unknown;
}

export interface ActiveWatch {
  /** Ends the stream abruptly, like a dropped connection. */
  drop(): void;
  /** Ends the stream cleanly. */
  close(): void;
}

export function startWatch(
  store: ObjectStore,
  res: ServerResponse,
  options: WatchOptions,
  onEnd: () => void,
): ActiveWatch {
  const { type, namespace, query } = options;
  // Parse first: a bad selector is a 400 before any streaming starts.
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'), type);
  const key = typeKey(type);
  const gv = groupVersion(type);
  // `sendInitialEvents=true` asks for a streaming list; upstream requires NotOlderThan and bookmarks.
  const streamingList = query.get('sendInitialEvents') === 'true';
  if (streamingList) {
    const problems: FieldError[] = [];
    if (query.get('resourceVersionMatch') !== 'NotOlderThan') {
      problems.push({
        type: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        detail: 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      });
    }
    if (query.get('allowWatchBookmarks') !== 'true') {
      problems.push({
        type: 'FieldValueForbidden',
        field: 'allowWatchBookmarks',
        detail: 'sendInitialEvents requires setting allowWatchBookmarks to true',
      });
    }
    if (problems.length > 0) {
      throw statusErrors.invalid(
        { group: 'meta.k8s.io', kind: 'ListOptions', plural: 'listoptions' } as ResourceType,
        '',
        problems,
      );
    }
  }
  const matches = (object: KubeObject) =>
    (!namespace || object.metadata.namespace === namespace) &&
    labels.matches(object.metadata.labels) &&
    fields.matches(object);

  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  // Send the headers now: clients wait for them before they consider the watch established.
  res.flushHeaders();
  let lastRv = store.currentRv;
  let ended = false;
  const encode = options.encode ?? ((_: string, object: KubeObject) => object);
  const send = (eventType: string, object: KubeObject) => {
    if (ended) return;
    res.write(
      `${JSON.stringify({ type: eventType, object: encode(eventType, { ...object, apiVersion: gv, kind: type.kind }) })}\n`,
    );
  };

  const deliver = (change: StoreEvent) => {
    // Changes to the objects a view shows arrive converted (events.k8s.io/v1 Events).
    const event = store.eventAs(key, change);
    if (!event) return;
    lastRv = event.rv;
    const now = matches(event.object);
    const before = event.previous ? matches(event.previous) : false;
    if (event.type === 'ADDED' && now) send('ADDED', event.object);
    else if (event.type === 'MODIFIED') {
      if (now && before) send('MODIFIED', event.object);
      else if (now) send('ADDED', event.object);
      else if (before) send('DELETED', event.object);
    } else if (event.type === 'DELETED' && (before || now)) send('DELETED', event.object);
  };

  const requested = query.get('resourceVersion');
  if (streamingList) {
    // Watch-list (KEP-3157): the current state as ADDED events, then a bookmark marking their end.
    for (const object of store.list(key, namespace)) if (matches(object)) send('ADDED', object);
    send('BOOKMARK', {
      kind: type.kind,
      apiVersion: gv,
      metadata: {
        resourceVersion: String(store.currentRv),
        annotations: { 'k8s.io/initial-events-end': 'true' },
      },
    });
  } else if (!requested || requested === '0') {
    for (const object of store.list(key, namespace)) if (matches(object)) send('ADDED', object);
  } else {
    const from = /^\d+$/.test(requested) ? Number(requested) : Number.NaN;
    const events = Number.isNaN(from) ? undefined : store.eventsAfter(from);
    if (!events) {
      const status = new StatusError(
        410,
        'Expired',
        Number.isNaN(from)
          ? `invalid resource version: ${requested}`
          : `too old resource version: ${requested} (${store.oldestResumableRv + 1})`,
      ).toStatus();
      res.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
      ended = true;
      onEnd();
      return { drop: () => undefined, close: () => undefined };
    }
    for (const event of events) deliver(event);
  }
  // Same tick as the replay above: no event can fall between history and live delivery.
  const unsubscribe = store.subscribe(deliver);

  const timers: NodeJS.Timeout[] = [];
  const end = (abrupt: boolean) => {
    if (ended) return;
    ended = true;
    unsubscribe();
    for (const t of timers) clearTimeout(t);
    if (abrupt) res.destroy();
    else res.end();
    onEnd();
  };
  const timeoutSeconds = Number(query.get('timeoutSeconds') ?? options.defaultTimeoutSeconds);
  timers.push(setTimeout(() => end(false), Math.max(0, timeoutSeconds) * 1000));
  if (query.get('allowWatchBookmarks') === 'true' || query.get('allowWatchBookmarks') === '1') {
    const tick = () => {
      if (ended) return;
      send('BOOKMARK', { kind: type.kind, apiVersion: gv, metadata: { resourceVersion: String(lastRv) } });
      timers.push(setTimeout(tick, options.bookmarkIntervalMs));
    };
    timers.push(setTimeout(tick, options.bookmarkIntervalMs));
  }
  res.on('close', () => end(false));
  return { drop: () => end(true), close: () => end(false) };
}
