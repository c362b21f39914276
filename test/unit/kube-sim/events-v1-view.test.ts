/**
 * The events.k8s.io/v1 ↔ core/v1 Event conversion (pkg/apis/events/v1/conversion.go): every
 * field has a counterpart, so a round trip either way gives the object back unchanged.
 */
import { describe, expect, it } from 'vitest';
import { eventFromEventsV1, eventToEventsV1 } from '../../../infra/kube-sim/store/events-v1-view.ts';
import type { KubeObject } from '../../../infra/kube-sim/types.ts';

const metadata = { name: 'e', namespace: 'ns', resourceVersion: '7', labels: { a: '1' } };
const core: KubeObject = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata,
  involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p' },
  reason: 'Pulled',
  message: 'pulled',
  source: { component: 'kubelet', host: 'n1' },
  firstTimestamp: '2026-01-02T03:04:05Z',
  lastTimestamp: '2026-01-02T03:09:05Z',
  count: 2,
  type: 'Normal',
  eventTime: '2026-01-02T03:04:05.000001Z',
  series: { count: 2, lastObservedTime: '2026-01-02T03:09:05.000000Z' },
  action: 'Pull',
  related: { kind: 'Node', name: 'n1' },
  reportingComponent: 'kubelet',
  reportingInstance: 'n1',
};

describe('events.k8s.io/v1 view of core/v1 Events', () => {
  it('renames the five moved fields and the deprecated ones, keeping the rest', () => {
    expect(eventToEventsV1(core)).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata,
      regarding: core.involvedObject,
      reason: 'Pulled',
      note: 'pulled',
      deprecatedSource: core.source,
      deprecatedFirstTimestamp: core.firstTimestamp,
      deprecatedLastTimestamp: core.lastTimestamp,
      deprecatedCount: 2,
      type: 'Normal',
      eventTime: core.eventTime,
      series: core.series,
      action: 'Pull',
      related: core.related,
      reportingController: 'kubelet',
      reportingInstance: 'n1',
    });
  });

  it('round-trips both ways without loss and without inventing absent fields', () => {
    expect(eventFromEventsV1(eventToEventsV1(core))).toEqual(core);
    const sparse: KubeObject = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata, note: 'n' };
    expect(eventFromEventsV1(sparse)).toEqual({ apiVersion: 'v1', kind: 'Event', metadata, message: 'n' });
    expect(eventToEventsV1(eventFromEventsV1(sparse))).toEqual(sparse);
  });

  it('does not change the object it converts (the store hands out its own)', () => {
    const copy = structuredClone(core);
    eventToEventsV1(core);
    expect(core).toEqual(copy);
  });
});
