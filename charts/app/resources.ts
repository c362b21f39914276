/**
 * Container resources: requests default to 100m CPU and 128Mi memory (as Dokku's chart), limits
 * only when asked for. A limit below the default request lowers the request to it, because the
 * API server refuses a request above its limit and the user never asked for that request.
 */
import { compareQuantities } from '../../rules/quantities.ts';

export const DEFAULT_CPU_REQUEST = '100m';
export const DEFAULT_MEMORY_REQUEST = '128Mi';

export interface ResourceValues {
  cpu?: string | undefined;
  memory?: string | undefined;
  cpuLimit?: string | undefined;
  memoryLimit?: string | undefined;
}

export interface ContainerResources {
  requests: { cpu: string; memory: string };
  limits?: { cpu?: string; memory?: string };
}

export function containerResources(values: ResourceValues = {}): ContainerResources {
  const resources: ContainerResources = {
    requests: {
      cpu: values.cpu ?? atMost(DEFAULT_CPU_REQUEST, values.cpuLimit),
      memory: values.memory ?? atMost(DEFAULT_MEMORY_REQUEST, values.memoryLimit),
    },
  };
  if (values.cpuLimit !== undefined || values.memoryLimit !== undefined) {
    resources.limits = {};
    if (values.cpuLimit !== undefined) resources.limits.cpu = values.cpuLimit;
    if (values.memoryLimit !== undefined) resources.limits.memory = values.memoryLimit;
  }
  return resources;
}

/** `fallback`, or `limit` when the limit is the smaller one. */
function atMost(fallback: string, limit: string | undefined): string {
  if (limit === undefined) return fallback;
  return (compareQuantities(limit, fallback) ?? 0) < 0 ? limit : fallback;
}

/** Whether an explicitly given request is above its limit (the API server would refuse it). */
export function requestAboveLimit(request: string | undefined, limit: string | undefined): boolean {
  if (request === undefined || limit === undefined) return false;
  return (compareQuantities(request, limit) ?? 0) > 0;
}
