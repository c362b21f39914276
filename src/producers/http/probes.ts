/**
 * The orchestrator's probes on the API server, the same paths as a worker's and a scheduler's
 * health server (src/workers/health-server.ts), so every Deployment of infra/deploy probes alike:
 * /healthz (the process answers: liveness) and /readyz (its Redis connection is up: readiness; a
 * server without Redis can enqueue nothing, so it leaves the Service until Redis is back). No
 * token, and no rate limit: the kubelet probes every few seconds from one address. While the
 * server closes, fastify answers every new request 503 (its `return503OnClosing`), these too.
 */
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';

export function registerProbes(server: FastifyInstance, redis: Pick<Redis, 'status'>): void {
  server.get('/healthz', { config: { rateLimit: false } }, async () => ({ status: 'ok' }));
  server.get('/readyz', { config: { rateLimit: false } }, async (_request, reply) =>
    redis.status === 'ready'
      ? { status: 'ready' }
      : reply.code(503).send({ status: 'not ready', reason: `Redis connection ${redis.status}` }),
  );
}
