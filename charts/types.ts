/**
 * The contract every chart keeps: a zod schema for its values and a pure render function that turns
 * parsed values into Kubernetes objects. Charts never read the cluster or the clock, so the same
 * values always render the same objects and the release engine can compare revisions by digest.
 */
import type { z } from 'zod';

/** One Kubernetes object as a chart renders it: JSON-ready, identity fields typed. */
export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
}

export interface Chart<V> {
  name: string;
  version: string;
  values: z.ZodType<V>;
  /** Parses `values` with the schema first: bad input throws ChartValuesError, never a half render. */
  render(values: V): RenderedObject[];
}
