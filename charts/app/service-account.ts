/** The app's ServiceAccount, named after the app; every pod of the app runs as it. */
import { appLabels } from '../labels.ts';
import { objectMeta } from '../metadata.ts';
import type { RenderedObject } from '../types.ts';
import type { AppChartValues } from './values.ts';

export function serviceAccount(values: AppChartValues): RenderedObject {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: objectMeta(
      values.app,
      values.namespace,
      appLabels(values.app, values.labels),
      values.annotations,
    ),
  };
}
