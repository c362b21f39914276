/**
 * Builds a Chart from a schema and a render function over parsed values, so every chart validates
 * the same way before it renders anything.
 */
import type { z } from 'zod';
import { ChartValuesError } from './errors.ts';
import type { Chart, RenderedObject } from './types.ts';

export function defineChart<V>(spec: {
  name: string;
  version: string;
  values: z.ZodType<V>;
  build(values: V): RenderedObject[];
}): Chart<V> {
  return {
    name: spec.name,
    version: spec.version,
    values: spec.values,
    render(values: V): RenderedObject[] {
      return spec.build(parseValues(spec.name, spec.values, values));
    },
  };
}

/** `values` parsed by `schema`, or a ChartValuesError listing every issue zod found. */
export function parseValues<V>(chart: string, schema: z.ZodType<V>, values: unknown): V {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  throw new ChartValuesError(
    chart,
    parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
  );
}
