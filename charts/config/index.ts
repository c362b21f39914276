/**
 * The config chart: one Opaque Secret `config-{app}` holding the app's environment. It is its own
 * release (not part of the app chart) so rolling back the app never deletes a Secret that older
 * ReplicaSets still read (dokku#8531); pods pick it up through `envFrom` and roll on its digest.
 */
import { defineChart } from '../define.ts';
import { base64 } from '../encoding.ts';
import { appLabels } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import type { RenderedObject } from '../types.ts';
import { type ConfigChartValues, configValues } from './values.ts';

export { type ConfigChartValues, configValues, SECRET_MAX_BYTES } from './values.ts';

/** Name of the Secret (and release) holding an app's environment. */
export function configSecretName(app: string): string {
  return `config-${app}`;
}

export const configChart = defineChart<ConfigChartValues>({
  name: 'config',
  version: '1.0.0',
  values: configValues,
  build(values): RenderedObject[] {
    const data: Record<string, string> = {};
    for (const key of Object.keys(values.env).sort()) data[key] = base64(values.env[key]!);
    return [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: objectMeta(configSecretName(values.app), values.namespace, appLabels(values.app)),
        type: 'Opaque',
        data,
      },
    ];
  },
});
