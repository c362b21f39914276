/**
 * The HTTP API (`longshore serve`, fastify 5): a producer like the CLI and the git hook. Every
 * `/api/v1` route but `health` needs a bearer token (tokens.ts); writes need a `write` token.
 * Bodies are validated by the same zod contracts before anything is enqueued; errors are JSON
 * `{ error, message, issues? }` with the status a client acts on (400 bad input, 401/403 auth, 404,
 * 409 refused, 413 body too large, 429 rate limit, 502/504 a read job failed or is late, 503 when
 * Redis is unreachable). docs/http-api.md.
 */
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import {
  ConfigError,
  InfrastructureError,
  InvalidInputError,
  NotFoundError,
  RefusedError,
  WaitTimeoutError,
} from '../../core/errors.ts';
import type { JobClient } from '../../jobs/client.ts';
import { laneId } from '../../jobs/lane.ts';
import { isPlannable } from '../../jobs/plannable.ts';
import type { Sealer } from '../../jobs/sealing.ts';
import { listLaneStatuses, readLaneStatus } from '../../jobs/status.ts';
import { listJobs, showJob } from '../ops/jobs-ops.ts';
import { APP_JOB_SEGMENTS, type AppJobSegment, payloadFromBody } from './app-jobs.ts';
import { streamJobEvents } from './job-events.ts';
import { registerApiMetrics } from './metrics.ts';
import { registerProbes } from './probes.ts';
import {
  jobsQuery,
  parseQuery,
  RELEASES_WAIT_SECONDS,
  ReadJobFailedError,
  readReleases,
  releasesQuery,
} from './read-jobs.ts';
import { type ApiToken, allows, type TokenScope, verifyToken } from './tokens.ts';
import { registerUi } from './ui/routes.ts';
import type { SessionKeys } from './ui/session.ts';
import type { WebhookSettings } from './webhook-settings.ts';
import { registerWebhooks } from './webhooks.ts';

export interface ApiServerOptions {
  redis: Redis;
  client: JobClient;
  /** The fleet's sealer, for bodies with secret values; throws ConfigError when no secret is set. */
  sealer: () => Sealer;
  tokens: readonly ApiToken[];
  /** Requests per token (or per address, unauthenticated) and window, counted in Redis across servers. */
  rateLimit: { max: number; windowMs: number };
  /** Push webhooks: the secret deliveries are signed with and which pushes deploy which app. */
  webhooks?: WebhookSettings;
  /** The dashboard's session signing key (ui/session.ts). */
  sessionKeys: SessionKeys;
  /** How often the job events stream polls the job (ms). */
  pollMs?: number;
  /** Told about an error no rule maps to a status (answered 500), so the server log has it. */
  onInternalError?(err: unknown, request: { method: string; url: string }): void;
}

declare module 'fastify' {
  interface FastifyRequest {
    token?: ApiToken;
  }
  interface FastifyContextConfig {
    /** The scope a route needs; absent: no token needed. */
    scope?: TokenScope;
  }
}

function problem(reply: FastifyReply, status: number, error: string, message: string, extra: object = {}) {
  return reply
    .code(status)
    .type('application/json')
    .send({ error, message, ...extra });
}

/** The status of a known app, or NotFoundError as `GET /api/v1/apps/:app` answers. */
async function knownApp(redis: Redis, app: string) {
  const status = await readLaneStatus(redis, laneId({ kind: 'app', name: app }));
  if (!status) throw new NotFoundError(`no app ${app} known to the fleet`);
  return status;
}

/** The app name of a path, checked as every app name is (the contract checks it again). */
async function appOf(request: FastifyRequest): Promise<string> {
  const { app } = request.params as { app: string };
  const { appName } = await import('../../jobs/schemas/common.ts');
  const valid = appName.safeParse(app);
  if (!valid.success) {
    throw new InvalidInputError([
      { path: 'app', message: valid.error.issues[0]?.message ?? 'is not an app name' },
    ]);
  }
  return app;
}

/**
 * The largest request body taken, webhooks included (their raw-body parser inherits it): above a
 * job payload's limit (jobs/payload-checks.ts) since sealing is done after, below anything that
 * would strain the server. fastify refuses a bigger body with FST_ERR_CTP_BODY_TOO_LARGE (413)
 * from its Content-Length, or once that many bytes arrived, before any route runs
 * (fastify 5 lib/content-type-parser.js, test/body-limit.test.js).
 */
export const BODY_LIMIT_BYTES = 4 * 1024 * 1024;

export async function buildApiServer(options: ApiServerOptions): Promise<FastifyInstance> {
  const server = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES });

  server.setErrorHandler((err, request, reply) => {
    if (err instanceof InvalidInputError)
      return problem(reply, 400, 'invalid_input', err.message, { issues: err.issues });
    if (err instanceof NotFoundError) return problem(reply, 404, 'not_found', err.message);
    if (err instanceof RefusedError) return problem(reply, 409, 'refused', err.message);
    if (err instanceof ReadJobFailedError) return problem(reply, 502, 'job_failed', err.message);
    if (err instanceof WaitTimeoutError) return problem(reply, 504, 'timeout', err.message);
    if (err instanceof InfrastructureError) return problem(reply, 503, 'unavailable', err.message);
    if (err instanceof ConfigError) return problem(reply, 503, 'misconfigured', err.message);
    const status = (err as { statusCode?: number }).statusCode;
    if (status === 429) return problem(reply, 429, 'rate_limited', (err as Error).message);
    if (status === 413) {
      return problem(
        reply,
        413,
        'payload_too_large',
        `the request body is over ${BODY_LIMIT_BYTES} bytes, the API's limit; nothing was enqueued`,
      );
    }
    // fastify's own: unparsable JSON, an empty JSON body, an unsupported media type.
    if (status && status >= 400 && status < 500)
      return problem(reply, status, 'bad_request', (err as Error).message);
    options.onInternalError?.(err, { method: request.method, url: request.url.split('?')[0]! });
    return problem(reply, 500, 'internal', 'internal error; see the server log');
  });
  server.setNotFoundHandler((request, reply) =>
    problem(reply, 404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`),
  );

  registerApiMetrics(server);

  // Authentication before anything else reads the request; the rate limit then counts per token.
  server.addHook('onRequest', async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const token = match ? verifyToken(options.tokens, match[1]!) : undefined;
    if (!token) {
      reply.header('www-authenticate', 'Bearer realm="longshore"');
      return problem(
        reply,
        401,
        'unauthorized',
        match ? 'the bearer token is not valid' : 'send Authorization: Bearer TOKEN',
      );
    }
    if (!allows(token.scope, scope)) {
      return problem(
        reply,
        403,
        'forbidden',
        `the token "${token.name}" has the ${token.scope} scope; this needs ${scope}`,
      );
    }
    request.token = token;
  });
  await server.register(rateLimit, {
    hook: 'preHandler',
    max: options.rateLimit.max,
    timeWindow: options.rateLimit.windowMs,
    redis: options.redis,
    nameSpace: 'longshore:api-rate:',
    keyGenerator: (request) => (request.token ? `token:${request.token.name}` : `ip:${request.ip}`),
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      error: 'rate_limited',
      message: `more than ${context.max} requests in ${context.after}; retry after that`,
    }),
  });

  server.get('/api/v1/health', async () => {
    await options.redis.ping();
    return { status: 'ok' };
  });
  registerProbes(server, options.redis);

  // The document is built from the contracts once, on first request.
  let document: Record<string, unknown> | undefined;
  const openApi = async () => {
    document ??= (await import('./openapi.ts')).openApiDocument();
    return document;
  };
  server.get('/api/v1/openapi.json', async () => openApi());
  server.get('/api/v1/docs', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .send((await import('./openapi.ts')).referencePage(await openApi())),
  );

  server.get('/api/v1/apps', { config: { scope: 'read' } }, async (request) => {
    const all = (request.query as { all?: string }).all === 'true';
    const known = await listLaneStatuses(options.redis, 'app');
    return { apps: all ? known : known.filter((a) => !a.destroyed && !a.renamedTo) };
  });

  server.get('/api/v1/apps/:app', { config: { scope: 'read' } }, async (request) =>
    knownApp(options.redis, await appOf(request)),
  );

  // A read job (the worker has the cluster; this server does not), waited for with a bound.
  server.get('/api/v1/apps/:app/releases', { config: { scope: 'read' } }, async (request) => {
    const app = await appOf(request);
    const query = parseQuery(releasesQuery, request.query);
    const status = await knownApp(options.redis, app);
    if (status.destroyed || status.renamedTo) {
      throw new NotFoundError(
        status.renamedTo ? `app ${app} was renamed to ${status.renamedTo}` : `app ${app} was destroyed`,
      );
    }
    return readReleases(options.client, app, `http:${request.token!.name}`, {
      timeoutMs: (query.timeout ?? RELEASES_WAIT_SECONDS.default) * 1000,
      ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    });
  });

  server.post('/api/v1/apps/:app/:segment', { config: { scope: 'write' } }, async (request, reply) => {
    const app = await appOf(request);
    const { segment } = request.params as { segment: string };
    if (!Object.hasOwn(APP_JOB_SEGMENTS, segment)) {
      throw new NotFoundError(
        `no job endpoint ${segment} (app jobs: ${Object.keys(APP_JOB_SEGMENTS).join(', ')})`,
      );
    }
    const type = APP_JOB_SEGMENTS[segment as AppJobSegment];
    const payload = payloadFromBody(type, app, request.body, options.sealer);
    const dryRun = (request.query as { dry_run?: string }).dry_run === 'true';
    if (dryRun && !isPlannable(type)) {
      throw new InvalidInputError([{ path: 'dry_run', message: `${type} jobs have no dry run` }]);
    }
    const job = dryRun
      ? await options.client.enqueue('dry-run', { type, payload }, `http:${request.token!.name}`)
      : await options.client.enqueue(type, payload, `http:${request.token!.name}`);
    return reply.code(202).send({
      job,
      links: { self: `/api/v1/jobs/${job.id}`, events: `/api/v1/jobs/${job.id}/events` },
    });
  });

  server.get('/api/v1/jobs', { config: { scope: 'read' } }, async (request) => {
    const query = parseQuery(jobsQuery, request.query);
    if (query.app) await knownApp(options.redis, query.app);
    const jobs = await listJobs(options.client, {
      ...(query.state ? { states: query.state } : {}),
      ...(query.app ? { app: query.app } : {}),
      ...(query.type ? { type: query.type } : {}),
      ...(query.limit ? { limit: query.limit } : {}),
    });
    return { jobs };
  });

  server.get('/api/v1/jobs/:id', { config: { scope: 'read' } }, async (request) => {
    const { id } = request.params as { id: string };
    return showJob(options.client, options.redis, id);
  });

  server.get('/api/v1/jobs/:id/events', { config: { scope: 'read' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    await streamJobEvents(request, reply, {
      client: options.client,
      redis: options.redis,
      id,
      ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    });
  });

  await registerUi(server, {
    redis: options.redis,
    client: options.client,
    tokens: options.tokens,
    keys: options.sessionKeys,
  });
  registerWebhooks(server, {
    redis: options.redis,
    client: options.client,
    settings: options.webhooks ?? { routes: [] },
  });

  return server;
}
