/**
 * events.k8s.io/v1 Event as a view of the stored core/v1 Event. Upstream stores both resources
 * under one etcd prefix (the storage factory's cohabitating resources, `events` in the core group
 * and events.k8s.io, encoded as core/v1) and converts through the internal core Event:
 * k8s.io/kubernetes pkg/apis/events/v1/conversion.go (Convert_v1_Event_To_core_Event and back)
 * renames five fields and moves the legacy ones under `deprecated*`; zz_generated.conversion.go
 * copies the rest by name. Every field has a counterpart, so the round trip loses nothing:
 *
 *   events.k8s.io/v1          core/v1
 *   note                      message
 *   regarding                 involvedObject
 *   reportingController       reportingComponent (the internal type's ReportingController)
 *   deprecatedSource          source
 *   deprecatedFirstTimestamp  firstTimestamp
 *   deprecatedLastTimestamp   lastTimestamp
 *   deprecatedCount           count
 *   series {count, lastObservedTime}, eventTime, action, reason, type, related, reportingInstance:
 *   the same names (both EventSeries carry count and lastObservedTime).
 *
 * kube-sim stores JSON, not Go structs: a field absent on one side is absent on the other (no
 * zero values are invented), and fields neither type declares are never stored (decoding drops
 * them), so they need no place here.
 */
import type { KubeObject } from '../types.ts';

/** events.k8s.io/v1 field name → core/v1 field name, for the fields that are renamed. */
export const EVENTS_V1_RENAMES: Readonly<Record<string, string>> = {
  note: 'message',
  regarding: 'involvedObject',
  reportingController: 'reportingComponent',
  deprecatedSource: 'source',
  deprecatedFirstTimestamp: 'firstTimestamp',
  deprecatedLastTimestamp: 'lastTimestamp',
  deprecatedCount: 'count',
};

const CORE_RENAMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(EVENTS_V1_RENAMES).map(([view, core]) => [core, view]),
);

/** Top-level keys renamed by `renames`, in the source's order, with the target's apiVersion. */
function renamed(
  object: KubeObject,
  renames: Readonly<Record<string, string>>,
  apiVersion: string,
): KubeObject {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion') out.apiVersion = apiVersion;
    else out[renames[key] ?? key] = value;
  }
  out.apiVersion = apiVersion;
  out.kind = 'Event';
  return out as KubeObject;
}

/** Convert_core_Event_To_v1_Event: the stored core/v1 Event as events.k8s.io/v1 shows it. */
export function eventToEventsV1(stored: KubeObject): KubeObject {
  return renamed(stored, CORE_RENAMES, 'events.k8s.io/v1');
}

/** Convert_v1_Event_To_core_Event: an events.k8s.io/v1 Event as core/v1 stores it. */
export function eventFromEventsV1(view: KubeObject): KubeObject {
  return renamed(view, EVENTS_V1_RENAMES, 'v1');
}
