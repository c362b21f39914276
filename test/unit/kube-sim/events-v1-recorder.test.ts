/**
 * The events.k8s.io/v1 recorder (client-go tools/events) the simulated scheduler records with:
 * the Event it writes (makeEvent), and how repeats become a series (event_broadcaster.go
 * recordToSink, refreshExistingEventSeries every 30 min, finishSeries after 6 quiet minutes).
 * In-process against the real API service and store; the clock is vitest's fake one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClusterIPAllocator } from '../../../infra/kube-sim/api/cluster-ip.ts';
import { ApiService } from '../../../infra/kube-sim/api/service.ts';
import { EventsV1Recorder } from '../../../infra/kube-sim/controllers/events-v1-recorder.ts';
import { SimClient } from '../../../infra/kube-sim/controllers/sim-client.ts';
import { findByKind } from '../../../infra/kube-sim/resources.ts';
import { ObjectStore } from '../../../infra/kube-sim/store/object-store.ts';
import type { KubeObject } from '../../../infra/kube-sim/types.ts';

const NAMESPACE = findByKind('v1', 'Namespace')!;
const POD: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'apps', uid: 'u-1', resourceVersion: '7' },
};
const MINUTE = 60_000;

describe('EventsV1Recorder', () => {
  let store: ObjectStore;
  let recorder: EventsV1Recorder;
  const events = () => store.list('events.k8s.io/events', 'apps');
  const core = () => store.list('/events', 'apps');

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-02T03:04:05.678Z'));
    store = new ObjectStore();
    const client = new SimClient(new ApiService(store, new ClusterIPAllocator()), 'default-scheduler');
    client.create(NAMESPACE, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
    recorder = new EventsV1Recorder(client, 'default-scheduler');
  });
  afterEach(() => vi.useRealTimers());

  const failed = (note = '0/1 nodes are available') =>
    recorder.eventf(POD, undefined, 'Warning', 'FailedScheduling', 'Scheduling', note);

  it('writes a new-style Event: eventTime, reporting controller and instance, action, no deprecated fields', () => {
    recorder.eventf(
      POD,
      undefined,
      'Normal',
      'Scheduled',
      'Binding',
      'Successfully assigned apps/web-1 to n',
    );
    const [event] = events();
    expect(event).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      metadata: { namespace: 'apps' },
      eventTime: '2026-01-02T03:04:05.678000Z',
      reportingController: 'default-scheduler',
      reportingInstance: 'default-scheduler-kube-sim-control-plane',
      action: 'Binding',
      reason: 'Scheduled',
      type: 'Normal',
      note: 'Successfully assigned apps/web-1 to n',
      regarding: {
        kind: 'Pod',
        namespace: 'apps',
        name: 'web-1',
        uid: 'u-1',
        apiVersion: 'v1',
        resourceVersion: '7',
      },
    });
    expect(event!.metadata.name).toMatch(/^web-1\.[0-9a-f]+$/);
    // Stored as a core/v1 Event without source, first/lastTimestamp or count.
    const [stored] = core();
    expect(stored).toMatchObject({ reportingComponent: 'default-scheduler', message: event!.note });
    for (const legacy of ['source', 'firstTimestamp', 'lastTimestamp', 'count'])
      expect(stored).not.toHaveProperty(legacy);
  });

  it('makes a series of repeats: the second writes count 2, later ones at the 30-minute refresh', () => {
    failed();
    const name = events()[0]!.metadata.name;
    vi.advanceTimersByTime(MINUTE);
    // The note is not part of the key: a changed message still joins the series.
    failed('0/2 nodes are available');
    expect(events()).toHaveLength(1);
    expect(events()[0]).toMatchObject({
      metadata: { name },
      note: '0/1 nodes are available',
      series: { count: 2, lastObservedTime: '2026-01-02T03:05:05.678000Z' },
    });
    const rv = store.currentRv;
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(4 * MINUTE);
      failed();
    }
    // Counted in the recorder only, as upstream's cache does between refreshes.
    expect(store.currentRv).toBe(rv);
    expect(events()[0]!.series).toMatchObject({ count: 2 });
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(4 * MINUTE);
      failed();
    }
    // 33 minutes after the last write: the refresh wrote the count seen by then.
    expect(events()[0]!.series).toEqual({ count: 9, lastObservedTime: '2026-01-02T03:33:05.678000Z' });
  });

  it('finishes a quiet series with its final count and starts a new Event afterwards', () => {
    failed();
    failed();
    failed();
    expect(events()[0]!.series).toMatchObject({ count: 2 });
    vi.advanceTimersByTime(7 * MINUTE);
    // The next event sweeps first: the finished series gets its last count, then is forgotten.
    failed();
    const all = events();
    expect(all).toHaveLength(2);
    const [older, newer] = all.sort((a, b) => String(a.eventTime).localeCompare(String(b.eventTime)));
    expect(older!.series).toMatchObject({ count: 3 });
    expect(newer).not.toHaveProperty('series');
  });

  it('forgets a singleton six minutes after its eventTime, so a later repeat is a new Event', () => {
    failed();
    vi.advanceTimersByTime(7 * MINUTE);
    failed();
    expect(events()).toHaveLength(2);
    expect(events().every((e) => e.series === undefined)).toBe(true);
  });

  it('drops what the API refuses (a namespace that is gone), as a best-effort recorder', () => {
    const elsewhere = { ...POD, metadata: { ...POD.metadata, namespace: 'missing' } };
    expect(() => recorder.eventf(elsewhere, undefined, 'Normal', 'Scheduled', 'Binding', 'x')).not.toThrow();
    expect(store.list('events.k8s.io/events', 'missing')).toEqual([]);
  });
});
