/**
 * A job's stream as server-sent events, for the API (`/api/v1/jobs/:id/events`) and the dashboard's
 * job page (`/ui/jobs/:id/events`): every event so far, then each as it happens, the outcome last
 * (`event: outcome`); the response ends with the job, or when the client goes (the job goes on).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { CancelledError } from '../../core/errors.ts';
import type { JobClient } from '../../jobs/client.ts';
import { outcomeEvent, showJob, waitForJob } from '../ops/jobs-ops.ts';

export async function streamJobEvents(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { client: JobClient; redis: Redis; id: string; pollMs?: number },
): Promise<void> {
  await showJob(options.client, options.redis, options.id); // 404 before the stream starts
  const abort = new AbortController();
  request.raw.on('close', () => abort.abort());
  reply.hijack();
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const send = (event: string, data: unknown) =>
    reply.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  try {
    const final = await waitForJob(
      options.client,
      options.id,
      { onEvent: (e) => send(e.kind, e) },
      { signal: abort.signal, ...(options.pollMs ? { pollMs: options.pollMs } : {}) },
    );
    send('outcome', outcomeEvent(final));
  } catch (err) {
    if (!(err instanceof CancelledError)) send('error', { message: (err as Error).message });
  } finally {
    reply.raw.end();
  }
}
