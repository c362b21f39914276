/**
 * The dashboard at `/ui` (docs/http-api.md, "Dashboard"): a token login that opens a signed
 * session cookie, the apps page from the status projection, a page per job with its stream and,
 * for a failed job, a Retry button (longshore's retry: the lane protocol's checks, as
 * `jobs:retry`), and Bull Board for the queue at `/ui/queues` — read-only, because its own retry
 * and clean act on BullMQ directly, past the lanes' ordering. Every mutating request must come
 * from the dashboard itself: its Origin (or Referer) must be this server, and a form's CSRF
 * token must match the session's.
 */
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { RefusedError } from '../../../core/errors.ts';
import type { JobClient } from '../../../jobs/client.ts';
import { listLaneStatuses } from '../../../jobs/status.ts';
import { retryJob, showJob } from '../../ops/jobs-ops.ts';
import { streamJobEvents } from '../job-events.ts';
import { type ApiToken, allows, verifyToken } from '../tokens.ts';
import { appsPage, jobPage, loginPage } from './pages.ts';
import { cookiesOf, SESSION_COOKIE, SESSION_TTL_MS, type Session, type SessionKeys } from './session.ts';

declare module 'fastify' {
  interface FastifyRequest {
    session?: Session;
  }
}

export interface UiOptions {
  redis: Redis;
  client: JobClient;
  tokens: readonly ApiToken[];
  keys: SessionKeys;
}

function sameOrigin(request: FastifyRequest): boolean {
  const source = request.headers.origin ?? request.headers.referer;
  if (!source) return false;
  try {
    return new URL(source).host === request.headers.host;
  } catch {
    return false;
  }
}

function cookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

const sendPage = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);

export async function registerUi(server: FastifyInstance, options: UiOptions): Promise<void> {
  await server.register(async (ui) => {
    ui.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 64 * 1024 },
      (_r, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );

    ui.addHook('onRequest', async (request, reply) => {
      const path = request.url.split('?')[0]!;
      if (path === '/ui/login') return;
      const session = options.keys.verify(cookiesOf(request.headers.cookie)[SESSION_COOKIE]);
      if (!session) {
        if (request.method === 'GET') return reply.redirect('/ui/login', 303);
        return reply.code(401).send({ error: 'unauthorized', message: 'log in at /ui/login' });
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        if (!sameOrigin(request))
          return reply.code(403).send({ error: 'forbidden', message: 'cross-site request refused' });
        if (path.startsWith('/ui/queues'))
          return reply.code(403).send({ error: 'forbidden', message: 'the queue board is read-only' });
      }
      request.session = session;
    });

    const who = (request: FastifyRequest) => ({
      name: request.session!.name,
      csrf: options.keys.csrfToken(request.session!),
      canWrite: allows(request.session!.scope, 'write'),
    });
    const checkForm = (request: FastifyRequest) => {
      const csrf = (request.body as Record<string, unknown> | undefined)?.csrf;
      if (!options.keys.checkCsrf(request.session!, csrf))
        throw new RefusedError('the form is stale or not from this dashboard (CSRF token)');
    };

    ui.get('/ui/login', async (_request, reply) => sendPage(reply, 200, loginPage()));
    ui.post('/ui/login', async (request, reply) => {
      if (!sameOrigin(request))
        return reply.code(403).send({ error: 'forbidden', message: 'cross-site request refused' });
      const token = (request.body as Record<string, unknown> | undefined)?.token;
      const found =
        typeof token === 'string' && token ? verifyToken(options.tokens, token.trim()) : undefined;
      if (!found) return sendPage(reply, 401, loginPage('That token is not valid.'));
      const { value } = options.keys.issue(found.name, found.scope);
      return reply.header('set-cookie', cookie(request, value, SESSION_TTL_MS / 1000)).redirect('/ui', 303);
    });
    ui.post('/ui/logout', async (request, reply) => {
      checkForm(request);
      return reply.header('set-cookie', cookie(request, '', 0)).redirect('/ui/login', 303);
    });

    ui.get('/ui', async (request, reply) => {
      const apps = (await listLaneStatuses(options.redis, 'app')).filter((a) => !a.destroyed && !a.renamedTo);
      return sendPage(reply, 200, appsPage(apps, who(request)));
    });

    ui.get('/ui/jobs/:id', async (request, reply) => {
      const { id } = request.params as { id: string };
      const notice = (request.query as { notice?: string }).notice;
      return sendPage(
        reply,
        200,
        jobPage(await showJob(options.client, options.redis, id), who(request), notice),
      );
    });

    ui.post('/ui/jobs/:id/retry', async (request, reply) => {
      checkForm(request);
      if (!allows(request.session!.scope, 'write'))
        throw new RefusedError(`"${request.session!.name}" has the read scope`);
      const { id } = request.params as { id: string };
      const outcome = await retryJob(options.client, options.redis, id, false);
      const target = `/ui/jobs/${encodeURIComponent(id)}`;
      return reply.redirect(
        outcome.retried ? target : `${target}?notice=${encodeURIComponent(`not retried: ${outcome.reason}`)}`,
        303,
      );
    });

    // The job page follows a running job with this (session-authenticated) stream.
    ui.get('/ui/jobs/:id/events', async (request, reply) => {
      const { id } = request.params as { id: string };
      await streamJobEvents(request, reply, { client: options.client, redis: options.redis, id });
    });

    const { createBullBoard } = await import('@bull-board/api');
    const { BullMQAdapter } = await import('@bull-board/api/bullMQAdapter');
    const board = new FastifyAdapter();
    board.setBasePath('/ui/queues');
    createBullBoard({
      queues: options.client.queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
      serverAdapter: board,
      options: { uiConfig: { boardTitle: 'longshore' } },
    });
    await ui.register(board.registerPlugin(), { prefix: '/ui/queues' });
  });
}
