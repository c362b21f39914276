/**
 * Charts rendered for a deploy, before anything is written. A chart's ChartValuesError becomes an
 * InvalidInputError (never retried) naming each problem, e.g. `config: env is 1,100,000 bytes…`.
 */
import { type Chart, ChartValuesError } from '../../../charts/index.ts';
import { InvalidInputError } from '../../core/errors.ts';
import type { ReleaseObject } from '../../storage/types.ts';

export interface Rendered {
  chart: { name: string; version: string };
  values: Record<string, unknown>;
  objects: ReleaseObject[];
}

export function renderChart<V>(chart: Chart<V>, values: V, subject: string): Rendered {
  try {
    const objects = chart.render(values) as ReleaseObject[];
    return {
      chart: { name: chart.name, version: chart.version },
      values: values as Record<string, unknown>,
      objects,
    };
  } catch (err) {
    if (err instanceof ChartValuesError)
      throw new InvalidInputError(
        err.issues.map((i) => ({ path: i.path, message: i.message })),
        subject,
      );
    throw err;
  }
}
