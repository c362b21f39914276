/**
 * HorizontalPodAutoscaler autoscaling/v2 defaults (pkg/apis/autoscaling/v2/defaults.go):
 * minReplicas 1; no metrics means 80% average CPU utilization; a behavior given gets the
 * default scale-up and scale-down rules for what it leaves out.
 */
import { type JsonObject, objectAt, setDefault } from './context.ts';

function scaleUpDefaults(rules: JsonObject): void {
  setDefault(rules, 'stabilizationWindowSeconds', 0);
  setDefault(rules, 'selectPolicy', 'Max');
  if (!Array.isArray(rules.policies) || rules.policies.length === 0)
    rules.policies = [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ];
}

function scaleDownDefaults(rules: JsonObject): void {
  // stabilizationWindowSeconds stays unset: the controller then uses its 300 s default.
  setDefault(rules, 'selectPolicy', 'Max');
  if (!Array.isArray(rules.policies) || rules.policies.length === 0)
    rules.policies = [{ type: 'Percent', value: 100, periodSeconds: 15 }];
}

export function defaultHPA(hpa: JsonObject): void {
  const spec = objectAt(hpa, 'spec');
  if (!spec) return;
  setDefault(spec, 'minReplicas', 1);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0)
    spec.metrics = [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
      },
    ];
  const behavior = objectAt(spec, 'behavior');
  if (behavior) {
    behavior.scaleUp = { ...(objectAt(behavior, 'scaleUp') ?? {}) };
    scaleUpDefaults(behavior.scaleUp as JsonObject);
    behavior.scaleDown = { ...(objectAt(behavior, 'scaleDown') ?? {}) };
    scaleDownDefaults(behavior.scaleDown as JsonObject);
  }
}
