/**
 * A small HTTP server for the orchestrator and Prometheus: /healthz (the process answers),
 * /readyz (Redis connected, taking jobs, not shutting down) and /metrics.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface Readiness {
  ready(): { ok: boolean; reason?: string };
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export async function startHealthServer(
  host: string,
  port: number,
  readiness: Readiness,
  registry: Registry,
): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, '{"error":"method not allowed"}');
    if (path === '/healthz') return send(200, '{"status":"ok"}');
    if (path === '/readyz') {
      const state = readiness.ready();
      return send(
        state.ok ? 200 : 503,
        JSON.stringify(state.ok ? { status: 'ready' } : { status: 'not ready', reason: state.reason }),
      );
    }
    if (path === '/metrics') {
      registry
        .metrics()
        .then((text) => send(200, text, registry.contentType))
        .catch((err: Error) => send(500, JSON.stringify({ error: err.message })));
      return;
    }
    send(404, '{"error":"not found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
