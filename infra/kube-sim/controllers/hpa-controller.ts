/**
 * The horizontal pod autoscaler's reconcile (pkg/controller/podautoscaler/horizontal.go
 * reconcileAutoscaler) on a cluster without a metrics server, which is what kube-sim is:
 * - the target's `/scale` read fails → AbleToScale False FailedGetScale;
 * - the target at 0 replicas → scaling disabled (ScalingActive False ScalingDisabled);
 * - the target above maxReplicas or below minReplicas → scaled to the bound through its `/scale`
 *   subresource (AbleToScale True SucceededRescale, a SuccessfulRescale event, lastScaleTime);
 * - otherwise the metrics cannot be read → desiredReplicas stays the current count and
 *   ScalingActive is False with FailedGetResourceMetric (or FailedGetPodsMetric/…), as
 *   `kubectl describe hpa` shows on a cluster without metrics-server.
 * kube-sim simulates no metric values, so it never scales within [min, max] (docs/kube-sim.md).
 */
import { findByKind } from '../resources.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { clone, type KubeObject } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import type { ControllerDeps, SimController } from './controller.ts';
import { ControllerQueue } from './controller-queue.ts';
import { EventRecorder } from './event-recorder.ts';
import { type StatusCondition, setCondition } from './status-conditions.ts';

const HPA = findByKind('autoscaling/v2', 'HorizontalPodAutoscaler')!;
const HPA_KEY = 'autoscaling/horizontalpodautoscalers';

interface HpaSpec {
  scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string };
  minReplicas?: number;
  maxReplicas?: number;
  metrics?: { type?: string; resource?: { name?: string } }[];
}

interface HpaStatus {
  currentReplicas?: number;
  desiredReplicas?: number;
  lastScaleTime?: string;
  conditions?: StatusCondition[];
  [key: string]: unknown;
}

/** The error computeReplicasForMetrics reports for the first metric, without a metrics API. */
function metricsUnavailable(spec: HpaSpec): StatusCondition {
  const metric = spec.metrics?.[0];
  const type = metric?.type ?? 'Resource';
  if (type === 'Resource' || type === 'ContainerResource') {
    const name = metric?.resource?.name ?? 'cpu';
    return {
      type: 'ScalingActive',
      status: 'False',
      reason: type === 'Resource' ? 'FailedGetResourceMetric' : 'FailedGetContainerResourceMetric',
      message: `the HPA was unable to compute the replica count: failed to get ${name} utilization: unable to get metrics for resource ${name}: no metrics returned from resource metrics API`,
    };
  }
  return {
    type: 'ScalingActive',
    status: 'False',
    reason: `FailedGet${type}Metric`,
    message: `the HPA was unable to compute the replica count: unable to get metric: no custom metrics API (custom.metrics.k8s.io) registered`,
  };
}

export class HorizontalPodAutoscalerController implements SimController {
  private readonly queue: ControllerQueue;
  private readonly unsubscribe: () => void;
  private readonly events: EventRecorder;

  constructor(private readonly deps: ControllerDeps) {
    this.events = new EventRecorder(deps.client, 'horizontal-pod-autoscaler');
    this.queue = new ControllerQueue(
      (key) => this.sync(key),
      (key, err) => deps.onError(`horizontalpodautoscaler ${key}`, err),
    );
    for (const hpa of deps.store.list(HPA_KEY)) this.queue.add(keyOf(hpa));
    this.unsubscribe = deps.store.subscribe((event) => this.observe(event));
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private observe(event: StoreEvent): void {
    if (event.typeKey === HPA_KEY) {
      if (event.type !== 'DELETED') this.queue.add(keyOf(event.object));
      return;
    }
    // A scale target changed: its HPAs look again (upstream resyncs every 15 s instead).
    for (const hpa of this.deps.store.list(HPA_KEY, event.object.metadata.namespace)) {
      const ref = (hpa.spec as HpaSpec | undefined)?.scaleTargetRef;
      if (ref?.name === event.object.metadata.name && ref?.kind === event.object.kind)
        this.queue.add(keyOf(hpa));
    }
  }

  private sync(key: string): void {
    const [namespace, name] = key.split('/') as [string, string];
    const hpa = this.deps.store.get(HPA_KEY, namespace, name);
    if (!hpa || hpa.metadata.deletionTimestamp) return;
    const spec = (hpa.spec ?? {}) as HpaSpec;
    const old = (hpa.status ?? {}) as HpaStatus;
    const now = new Date();
    const ref = spec.scaleTargetRef ?? {};
    const type = findByKind(ref.apiVersion ?? '', ref.kind ?? '');
    const target =
      type && ref.name && type.subresources.some((s) => s.name === 'scale')
        ? this.deps.store.get(`${type.group}/${type.plural}`, namespace, ref.name)
        : undefined;
    let status: HpaStatus;
    if (!type || !target) {
      const what = type
        ? `${type.group ? `${type.plural}.${type.group}` : type.plural} "${ref.name}" not found`
        : `no matches for kind "${ref.kind}" in group "${(ref.apiVersion ?? '').split('/').slice(0, -1).join('/')}"`;
      status = {
        ...old,
        currentReplicas: old.currentReplicas ?? 0,
        desiredReplicas: old.desiredReplicas ?? 0,
        conditions: setCondition(
          old.conditions,
          {
            type: 'AbleToScale',
            status: 'False',
            reason: 'FailedGetScale',
            message: `the HPA controller was unable to get the target's current scale: ${what}`,
          },
          now,
        ),
      };
    } else {
      const current = Number((target.spec as { replicas?: number } | undefined)?.replicas ?? 1);
      const min = spec.minReplicas ?? 1;
      const max = spec.maxReplicas ?? min;
      let desired = current;
      let conditions = old.conditions;
      let rescale: string | undefined;
      if (current === 0 && min !== 0) {
        desired = 0;
        conditions = setCondition(
          conditions,
          {
            type: 'ScalingActive',
            status: 'False',
            reason: 'ScalingDisabled',
            message: 'scaling is disabled since the replica count of the target is zero',
          },
          now,
        );
      } else if (current > max) {
        desired = max;
        rescale = 'Current number of replicas above Spec.MaxReplicas';
      } else if (current < min) {
        desired = min;
        rescale = 'Current number of replicas below Spec.MinReplicas';
      } else conditions = setCondition(conditions, metricsUnavailable(spec), now);
      let lastScaleTime = old.lastScaleTime;
      if (rescale) {
        this.deps.client.update(
          type,
          { ...clone(target), spec: { ...(target.spec as object), replicas: desired } },
          'scale',
        );
        this.events.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${rescale}`);
        lastScaleTime = `${now.toISOString().slice(0, 19)}Z`;
        conditions = setCondition(
          conditions,
          {
            type: 'AbleToScale',
            status: 'True',
            reason: 'SucceededRescale',
            message: `the HPA controller was able to update the target scale to ${desired}`,
          },
          now,
        );
      } else if (!conditions?.some((c) => c.type === 'AbleToScale' && c.status === 'True')) {
        conditions = setCondition(
          conditions,
          {
            type: 'AbleToScale',
            status: 'True',
            reason: 'SucceededGetScale',
            message: "the HPA controller was able to get the target's current scale",
          },
          now,
        );
      }
      status = {
        ...old,
        currentReplicas: current,
        desiredReplicas: desired,
        ...(lastScaleTime ? { lastScaleTime } : {}),
        conditions: orderConditions(conditions ?? []),
      };
    }
    if (semanticEqual(status, hpa.status)) return;
    this.deps.client.update(HPA, { ...clone(hpa), status }, 'status');
  }
}

/** AbleToScale first, then ScalingActive, as the controller appends them. */
function orderConditions(conditions: StatusCondition[]): StatusCondition[] {
  const rank = (t: string) => (t === 'AbleToScale' ? 0 : t === 'ScalingActive' ? 1 : 2);
  return [...conditions].sort((a, b) => rank(a.type) - rank(b.type));
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}
