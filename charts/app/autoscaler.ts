/**
 * A process's autoscaler, from app.json `formation.<type>.autoscaling` (Dokku's k3s scheduler).
 *
 * With KEDA on the cluster: a `keda.sh/v1alpha1` ScaledObject targeting the process's Deployment
 * (keda.sh/docs/latest/reference/scaledobject-spec: scaleTargetRef, minReplicaCount,
 * maxReplicaCount, pollingInterval, cooldownPeriod, triggers); KEDA then drives an HPA of its own.
 * Without KEDA, cpu/memory triggers become an `autoscaling/v2` HorizontalPodAutoscaler's Resource
 * metrics (other triggers are refused in values.ts). An HPA has no polling interval (the
 * controller's --horizontal-pod-autoscaler-sync-period applies) and KEDA's cooldown maps to the
 * scale-down stabilization window, the HPA's closest notion.
 *
 * Either way the Deployment carries no `replicas` (deployment.ts): the autoscaler's field manager
 * owns that field, and longshore's server-side apply never takes it back.
 */
import { type Autoscaling, RESOURCE_TRIGGER_TYPES } from '../../rules/autoscaling.ts';
import { processLabels } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import type { RenderedObject } from '../types.ts';
import type { AppContext } from './context.ts';
import { deploymentName } from './deployment.ts';
import { triggerAuthName } from './trigger-auth.ts';

export function autoscaler(ctx: AppContext, process: string, scaling: Autoscaling): RenderedObject {
  const { values } = ctx;
  const name = deploymentName(values.app, process);
  const metadata = objectMeta(name, values.namespace, processLabels(values.app, process));
  const scaleTargetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name };
  if (values.keda) {
    return {
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata,
      spec: {
        scaleTargetRef,
        minReplicaCount: scaling.minReplicas,
        maxReplicaCount: scaling.maxReplicas,
        ...(scaling.pollingIntervalSeconds !== undefined
          ? { pollingInterval: scaling.pollingIntervalSeconds }
          : {}),
        ...(scaling.cooldownSeconds !== undefined ? { cooldownPeriod: scaling.cooldownSeconds } : {}),
        // A trigger type with authentication (autoscaling-auth:set) names its TriggerAuthentication.
        triggers: scaling.triggers.map((t) => ({
          ...kedaTrigger(t),
          ...(values.autoscalingAuth?.[t.type] !== undefined
            ? { authenticationRef: { name: triggerAuthName(values.app, t.type) } }
            : {}),
        })),
      },
    };
  }
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata,
    spec: {
      scaleTargetRef,
      minReplicas: scaling.minReplicas,
      maxReplicas: scaling.maxReplicas,
      metrics: scaling.triggers.map((t) => resourceMetric(t.type, t.metadata)),
      ...(scaling.cooldownSeconds !== undefined
        ? { behavior: { scaleDown: { stabilizationWindowSeconds: scaling.cooldownSeconds } } }
        : {}),
    },
  };
}

/**
 * A trigger as KEDA takes it. cpu and memory triggers say Utilization or AverageValue in the
 * trigger's `metricType`: KEDA 2.18 removed their metadata `type`, the older spelling Dokku's
 * app.json examples still use (keda.sh/docs/latest/scalers/cpu), so that one moves up.
 */
function kedaTrigger(t: Autoscaling['triggers'][number]): Record<string, unknown> {
  if (!(RESOURCE_TRIGGER_TYPES as readonly string[]).includes(t.type))
    return { type: t.type, metadata: sorted(t.metadata) };
  const { type: metricType = 'Utilization', ...metadata } = t.metadata;
  return { type: t.type, metricType, metadata: sorted(metadata) };
}

/**
 * KEDA's cpu/memory trigger as an HPA Resource metric: `value` is the target, a utilization
 * percentage unless metadata `type` (KEDA's older spelling of `metricType`) says AverageValue.
 */
function resourceMetric(type: string, metadata: Record<string, string>): Record<string, unknown> {
  const value = metadata.value ?? '';
  const target =
    metadata.type === 'AverageValue'
      ? { type: 'AverageValue', averageValue: value }
      : { type: 'Utilization', averageUtilization: Number(value) };
  return { type: 'Resource', resource: { name: type, target } };
}

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
