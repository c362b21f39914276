/**
 * The autoscaling-auth chart: per KEDA trigger type with authentication, one Opaque Secret
 * `keda-auth-{app}-{trigger}` holding its parameters (key = KEDA's parameter name). Its own
 * release `autoscaling-auth-{app}`, like config: its history keeps keys and digests, never values,
 * and rolling the app back never deletes a Secret KEDA still reads. The app chart renders the
 * TriggerAuthentication pointing at it (charts/app/trigger-auth.ts). Dokku's chart does the same
 * with Secret `kta-{app}-{type}` (plugins/scheduler-k3s templates/chart/keda-secret.yaml).
 */
import { defineChart } from '../define.ts';
import { base64 } from '../encoding.ts';
import { appLabels } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import type { RenderedObject } from '../types.ts';
import { type AutoscalingAuthChartValues, autoscalingAuthValues } from './values.ts';

export { type AutoscalingAuthChartValues, autoscalingAuthValues } from './values.ts';

/** The Secret a trigger type's TriggerAuthentication reads its parameters from. */
export function triggerAuthSecretName(app: string, trigger: string): string {
  return `keda-auth-${app}-${trigger}`;
}

export const autoscalingAuthChart = defineChart<AutoscalingAuthChartValues>({
  name: 'autoscaling-auth',
  version: '1.0.0',
  values: autoscalingAuthValues,
  build(values): RenderedObject[] {
    return Object.keys(values.triggers)
      .sort()
      .map((trigger) => {
        const parameters = (values.triggers as Record<string, Record<string, string>>)[trigger]!;
        const data: Record<string, string> = {};
        for (const key of Object.keys(parameters).sort()) data[key] = base64(parameters[key]!);
        return {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: objectMeta(
            triggerAuthSecretName(values.app, trigger),
            values.namespace,
            appLabels(values.app),
          ),
          type: 'Opaque',
          data,
        };
      });
  },
});
