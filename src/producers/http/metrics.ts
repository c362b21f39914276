/**
 * Prometheus metrics of one API server, on its `/metrics` (no token: scrape it on the cluster's
 * network, not through the public ingress; docs/http-api.md): requests by route template, method
 * and status, and their latency, beside the process's own metrics.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export function registerApiMetrics(server: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'longshore_api_' });
  const requests = new Counter({
    name: 'longshore_api_requests_total',
    help: 'HTTP API requests by route template, method and status code',
    labelNames: ['route', 'method', 'code'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'longshore_api_request_duration_seconds',
    help: 'HTTP API request latency by route template and method (job event streams excluded: they last as long as their job)',
    labelNames: ['route', 'method'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const started = new WeakMap<object, bigint>();
  server.addHook('onRequest', async (request) => {
    started.set(request, process.hrtime.bigint());
  });
  // The route template (`/api/v1/apps/:app`), never the URL: an app name is no label value.
  const record = (request: { routeOptions: { url?: string }; method: string }, code: number) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ route, method: request.method, code: String(code) });
    const start = started.get(request);
    if (start !== undefined && !route.endsWith('/events')) {
      duration.observe({ route, method: request.method }, Number(process.hrtime.bigint() - start) / 1e9);
    }
  };
  server.addHook('onResponse', async (request, reply) => record(request, reply.statusCode));
  server.get('/metrics', async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
  return registry;
}
