/**
 * KEDA TriggerAuthentications (keda.sh/v1alpha1), one per trigger type the app has authentication
 * for (`autoscaling-auth:set`): `{app}-{trigger}`, as Dokku names them (plugins/scheduler-k3s
 * templates/chart/keda-trigger-authentication.yaml). Each parameter maps to the key of the same
 * name in Secret `keda-auth-{app}-{trigger}` (the autoscaling-auth release), through
 * `secretTargetRef: [{parameter, name, key}]` (keda.sh/docs/latest/authentication-providers/secret).
 * Every ScaledObject trigger of that type names it in `authenticationRef` (autoscaler.ts).
 * Rendered only with KEDA on the cluster: without its CRD there is no such kind to apply.
 */
import { triggerAuthSecretName } from '../autoscaling-auth/index.ts';
import { appLabels } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import type { RenderedObject } from '../types.ts';
import type { AppChartValues } from './values.ts';

export function triggerAuthName(app: string, trigger: string): string {
  return `${app}-${trigger}`;
}

export function triggerAuthentications(values: AppChartValues): RenderedObject[] {
  if (!values.keda) return [];
  const auth: Record<string, string[] | undefined> = values.autoscalingAuth ?? {};
  return Object.keys(auth)
    .sort()
    .map((trigger) => ({
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'TriggerAuthentication',
      metadata: objectMeta(triggerAuthName(values.app, trigger), values.namespace, appLabels(values.app)),
      spec: {
        secretTargetRef: [...auth[trigger]!].sort().map((parameter) => ({
          key: parameter,
          name: triggerAuthSecretName(values.app, trigger),
          parameter,
        })),
      },
    }));
}
