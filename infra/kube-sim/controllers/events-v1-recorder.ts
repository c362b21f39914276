/**
 * events.k8s.io/v1 Events as client-go's new recorder writes them (k8s.io/client-go
 * tools/events): what kube-scheduler records through (cmd/kube-scheduler/app/options builds an
 * EventBroadcasterAdapter, which picks the events.k8s.io/v1 broadcaster when discovery serves
 * the group; pkg/scheduler/profile NewRecorderFactory names the recorder after the profile's
 * schedulerName).
 *
 * event_recorder.go makeEvent: name `<regarding name>.<hex nanoseconds>`, the regarding object's
 * namespace (`default` for cluster-scoped ones), eventTime now (MicroTime), reportingController
 * the recorder's name, reportingInstance `<name>-<hostname>` (event_broadcaster.go NewRecorder),
 * action, reason, regarding, related, note, type; no deprecated* fields, so the core/v1 view has
 * no source, first/lastTimestamp or count.
 *
 * event_broadcaster.go recordToSink folds isomorphic events (same type, action, reason,
 * reporting controller and instance, regarding and related; the note is not compared) into a
 * series: the second occurrence writes `series {count: 2, lastObservedTime}`, later ones only
 * count in the recorder's cache, which is written every 30 minutes (refreshExistingEventSeries)
 * and when the series has been quiet for 6 (finishSeries, which then forgets it; a singleton is
 * forgotten 6 minutes after its eventTime). Upstream runs those two on timers; here they run
 * when the recorder next records (at most every few seconds), so a recorder that falls silent
 * leaves its last counts unwritten. Recording is best effort: a refused write is dropped.
 */
import { microTimestamp } from '../api/metadata.ts';
import { findByKind } from '../resources.ts';
import type { KubeObject } from '../types.ts';
import { type EventType, eventNanos, objectReference } from './event-recorder.ts';
import type { SimClient } from './sim-client.ts';

const EVENTS_V1 = findByKind('events.k8s.io/v1', 'Event')!;
/**
 * The host name the control plane's components report from, in reportingInstance (kind's are
 * `<component>-kind-control-plane`). Fixed, so events do not name the machine kube-sim runs on.
 */
export const CONTROL_PLANE_HOST = 'kube-sim-control-plane';
const FINISH_MS = 6 * 60_000;
const REFRESH_MS = 30 * 60_000;
/** How often the cache is looked through for series to write or forget. */
const SWEEP_MS = 5_000;

interface CachedEvent {
  namespace: string;
  name: string;
  eventTime: number;
  series?: { count: number; lastObservedTime: number };
  /** The series count last written, and when. */
  writtenCount: number;
  writtenAt: number;
}

export class EventsV1Recorder {
  private readonly cache = new Map<string, CachedEvent>();
  private readonly reportingInstance: string;
  private lastSweep = 0;

  constructor(
    private readonly client: SimClient,
    private readonly reportingController: string,
    hostname = CONTROL_PLANE_HOST,
  ) {
    this.reportingInstance = `${reportingController}-${hostname}`;
  }

  /** Eventf(regarding, related, eventtype, reason, action, note). */
  eventf(
    regarding: KubeObject,
    related: KubeObject | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
  ): void {
    const now = Date.now();
    if (now - this.lastSweep >= SWEEP_MS) this.sweep(now);
    const regardingRef = objectReference(regarding);
    const relatedRef = related ? objectReference(related) : undefined;
    const key = JSON.stringify([type, action, reason, regardingRef, relatedRef ?? {}]);
    const cached = this.cache.get(key);
    try {
      if (cached) {
        if (cached.series) {
          cached.series.count++;
          cached.series.lastObservedTime = now;
          return;
        }
        cached.series = { count: 2, lastObservedTime: now };
        this.writeSeries(cached, now);
        return;
      }
      const namespace = regarding.metadata.namespace ?? 'default';
      const name = `${regarding.metadata.name}.${eventNanos(now).toString(16)}`;
      this.client.create(EVENTS_V1, {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name, namespace },
        eventTime: microTimestamp(new Date(now)),
        reportingController: this.reportingController,
        reportingInstance: this.reportingInstance,
        action,
        reason,
        regarding: regardingRef,
        ...(relatedRef ? { related: relatedRef } : {}),
        note,
        type,
      });
      this.cache.set(key, { namespace, name, eventTime: now, writtenCount: 1, writtenAt: now });
    } catch {
      // Events are advisory: a namespace being deleted refuses them, and that is fine.
    }
  }

  /** finishSeries and refreshExistingEventSeries, run on the recorder's next event. */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, cached] of this.cache) {
      const series = cached.series;
      if (!series) {
        if (cached.eventTime < now - FINISH_MS) this.cache.delete(key);
      } else if (series.lastObservedTime < now - FINISH_MS) {
        if (series.count !== cached.writtenCount) this.writeSeries(cached, now);
        this.cache.delete(key);
      } else if (cached.writtenAt < now - REFRESH_MS) {
        this.writeSeries(cached, now);
      }
    }
  }

  /** recordEvent for a series: the stored Event with the cached series (upstream patches it). */
  private writeSeries(cached: CachedEvent, now: number): void {
    const series = cached.series!;
    try {
      const stored = this.client.get(EVENTS_V1, cached.namespace, cached.name);
      // Upstream creates the Event again when the patch finds it gone; kube-sim's recorder
      // forgets it instead (it only goes when its namespace does).
      if (!stored) return;
      this.client.update(EVENTS_V1, {
        ...stored,
        series: { count: series.count, lastObservedTime: microTimestamp(new Date(series.lastObservedTime)) },
      });
      cached.writtenCount = series.count;
      cached.writtenAt = now;
    } catch {
      // As for a new event: best effort.
    }
  }
}
