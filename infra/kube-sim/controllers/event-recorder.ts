/**
 * core/v1 Events as client-go's legacy recorder writes them (tools/record/event.go
 * makeEvent/generateEvent): name `<object name>.<hex nanoseconds>`, the object's namespace
 * (`default` for cluster-scoped objects), involvedObject, source (component, and host for the
 * kubelet: cmd/kubelet/app/server.go makeEventRecorder records with Host = the node name), count,
 * first/lastTimestamp, and reportingComponent/reportingInstance = source.component/source.host
 * (generateEvent). Its EventCorrelator folds identical events (same object, type, reason,
 * message) into one whose count grows; that is kept here, without the rate limits. Recording is
 * best effort as upstream: a refused write (a terminating namespace) is dropped.
 */
import { timestamp } from '../api/metadata.ts';
import { typeKey } from '../api/service.ts';
import { findByKind } from '../resources.ts';
import { clone, type KubeObject } from '../types.ts';
import type { SimClient } from './sim-client.ts';

const EVENT = findByKind('v1', 'Event')!;
/** Bound on remembered events, so a long-running simulator does not grow without end. */
const MAX_REMEMBERED = 10_000;

export type EventType = 'Normal' | 'Warning';

let sequence = 0;
/**
 * Unique, increasing nanoseconds for Event names (client-go uses time.Now().UnixNano()): one
 * counter for every recorder, so two components recording about one object in the same
 * millisecond (the scheduler's Scheduled, the kubelet's Pulling) do not pick the same name.
 */
export function eventNanos(now = Date.now()): bigint {
  sequence = (sequence + 1) % 1_000_000;
  return BigInt(now) * 1_000_000n + BigInt(sequence);
}

export class EventRecorder {
  /** Correlation key → name of the Event that carries it. */
  private readonly seen = new Map<string, string>();

  /**
   * `hostOf` is the source's host for an object: the kubelet's node. One recorder stands for the
   * kubelets of every node, so the host is looked up per object rather than fixed.
   */
  constructor(
    private readonly client: SimClient,
    private readonly component: string,
    private readonly hostOf: (object: KubeObject) => string | undefined = () => undefined,
  ) {}

  /** `fieldPath` names the part of the object (the kubelet's `spec.containers{web}`). */
  event(object: KubeObject, type: EventType, reason: string, message: string, fieldPath?: string): void {
    const meta = object.metadata;
    const namespace = meta.namespace ?? 'default';
    const key = [object.kind, namespace, meta.name, meta.uid, fieldPath, type, reason, message].join(
      '\u0000',
    );
    const now = timestamp(new Date());
    const host = this.hostOf(object);
    try {
      const existingName = this.seen.get(key);
      const existing = existingName ? this.client.get(EVENT, namespace, existingName) : undefined;
      if (existing) {
        const next = clone(existing);
        next.count = (typeof existing.count === 'number' ? existing.count : 1) + 1;
        next.lastTimestamp = now;
        this.client.update(EVENT, next);
        return;
      }
      const name = `${meta.name}.${eventNanos().toString(16)}`;
      this.client.create(EVENT, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: { ...objectReference(object), ...(fieldPath ? { fieldPath } : {}) },
        reason,
        message,
        source: { component: this.component, ...(host ? { host } : {}) },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type,
        reportingComponent: this.component,
        reportingInstance: host ?? '',
      });
      if (this.seen.size >= MAX_REMEMBERED) this.seen.clear();
      this.seen.set(key, name);
    } catch {
      // Events are advisory: a namespace being deleted refuses them, and that is fine.
    }
  }
}

/** The store key of Events, for controllers that need to ignore their own. */
export const EVENT_TYPE_KEY = typeKey(EVENT);

/**
 * reference.GetReference (client-go tools/reference): how an Event names its object, as core/v1's
 * `involvedObject` and events.k8s.io/v1's `regarding` and `related`.
 */
export function objectReference(object: KubeObject): Record<string, unknown> {
  const meta = object.metadata;
  return {
    kind: object.kind,
    ...(meta.namespace ? { namespace: meta.namespace } : {}),
    name: meta.name,
    uid: meta.uid,
    apiVersion: object.apiVersion,
    resourceVersion: meta.resourceVersion,
  };
}
