/**
 * The API's OpenAPI 3.1 document, generated from the same zod contracts that validate the bodies
 * (`z.toJSONSchema`, JSON Schema 2020-12 as OpenAPI 3.1 uses it), so it cannot drift from what
 * the server accepts; and a reference page rendered from it, self-contained (no script, nothing
 * fetched), at `/api/v1/docs`.
 */
import { z } from 'zod';
import type { JobType } from '../../jobs/contract.ts';
import { contractFor } from '../../jobs/contracts.ts';
import { APP_JOB_SEGMENTS } from './app-jobs.ts';
import { jobsQuery, queryParameters, releasesQuery } from './read-jobs.ts';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[] };

/** A job's body: its payload without `app` (the path names it), with secrets as the plain text the server seals. */
export function bodySchema(type: JobType): Schema {
  const schema = z.toJSONSchema(contractFor(type).payload, { io: 'input', unrepresentable: 'any' }) as Schema;
  delete schema.$schema;
  if (schema.properties) delete schema.properties.app;
  if (schema.required) schema.required = schema.required.filter((k) => k !== 'app');
  const plain = (nullable: boolean): Schema => ({
    type: 'object',
    additionalProperties: nullable ? { type: ['string', 'null'] } : { type: 'string' },
    description: `variable names to plain values${nullable ? ' (null unsets)' : ''}, sealed by the server before anything is stored`,
  });
  if (type === 'config' && schema.properties?.set) schema.properties.set = plain(false);
  if (type === 'deploy' && schema.properties?.env) schema.properties.env = plain(true);
  const registry = type === 'deploy' ? schema.properties?.registry : undefined;
  for (const variant of [registry, ...((registry?.anyOf as Schema[] | undefined) ?? [])]) {
    if (variant?.properties?.password) {
      variant.properties.password = { type: 'string', description: 'plain text, sealed by the server' };
    }
  }
  return schema;
}

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, unknown> = {
    '/api/v1/health': {
      get: { summary: 'Redis answers', security: [], responses: { 200: { description: 'ok' } } },
    },
    // The orchestrator's probes (probes.ts): not rate limited.
    '/healthz': {
      get: {
        summary: 'The process answers (liveness)',
        security: [],
        responses: { 200: { description: 'ok' } },
      },
    },
    '/readyz': {
      get: {
        summary: 'The Redis connection is up (readiness)',
        security: [],
        responses: { 200: { description: 'ready' }, 503: { description: 'not ready, with the reason' } },
      },
    },
    '/api/v1/apps': {
      get: {
        summary: 'Apps and their status (apps:list --json)',
        parameters: [
          {
            name: 'all',
            in: 'query',
            schema: { type: 'boolean' },
            description: 'include destroyed and renamed apps',
          },
        ],
        responses: { 200: { description: 'the apps' }, 401: error('no valid token') },
      },
    },
    '/api/v1/apps/{app}': {
      get: {
        summary: "An app's status (apps:status --json)",
        parameters: [{ $ref: '#/components/parameters/app' }],
        responses: { 200: { description: 'the status' }, 404: error('unknown app') },
      },
    },
    '/api/v1/apps/{app}/releases': {
      get: {
        summary: "An app release's history, newest first (the releases read job, waited for)",
        parameters: [{ $ref: '#/components/parameters/app' }, ...queryParameters(releasesQuery)],
        responses: {
          200: { description: '{ app, job, releases }' },
          400: error('a bad query parameter'),
          404: error('unknown, destroyed or renamed app'),
          502: error('the releases job failed'),
          504: error('the releases job did not finish in time (it goes on)'),
        },
      },
    },
    '/api/v1/jobs': {
      get: {
        summary: 'Jobs, newest first, across the queue shards (jobs:list --json)',
        parameters: queryParameters(jobsQuery),
        responses: {
          200: { description: '{ jobs }' },
          400: error('a bad filter'),
          404: error('unknown app'),
        },
      },
    },
    '/api/v1/jobs/{id}': {
      get: {
        summary: 'A job (jobs:show --json; sealed values redacted)',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { 200: { description: 'the job' }, 404: error('unknown job') },
      },
    },
    '/api/v1/jobs/{id}/events': {
      get: {
        summary: "A job's stream as server-sent events, the outcome last",
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          200: { description: 'events', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        },
      },
    },
  };
  for (const [segment, type] of Object.entries(APP_JOB_SEGMENTS)) {
    paths[`/api/v1/apps/{app}/${segment}`] = {
      post: {
        summary: contractFor(type).summary,
        operationId: `enqueue-${type}`,
        parameters: [
          { $ref: '#/components/parameters/app' },
          {
            name: 'dry_run',
            in: 'query',
            schema: { type: 'boolean' },
            description: 'enqueue its dry run instead',
          },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: bodySchema(type) } } },
        responses: {
          202: {
            description: 'enqueued',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Enqueued' } } },
          },
          400: error('the body fails the job contract'),
          401: error('no valid token'),
          403: error('a read token'),
          429: error('over the rate limit'),
        },
      },
    };
  }
  for (const forge of ['github', 'gitea']) {
    paths[`/api/v1/webhooks/${forge}`] = {
      post: {
        summary: `A ${forge === 'github' ? 'GitHub' : 'Gitea or Forgejo'} push webhook (HMAC-SHA256 signed; not a bearer route)`,
        security: [],
        responses: {
          202: { description: 'enqueued or ignored' },
          200: { description: 'ping, or a delivery seen before' },
          401: error('bad signature'),
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'longshore',
      version: '1.0.0',
      description: 'Queue-driven deploy fleet for Kubernetes: the jobs the CLI enqueues, over HTTP.',
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'a token from `longshore api-token:create`' },
      },
      parameters: { app: { name: 'app', in: 'path', required: true, schema: { type: 'string' } } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error', 'message'],
          properties: {
            error: { type: 'string' },
            message: { type: 'string' },
            issues: {
              type: 'array',
              items: {
                type: 'object',
                properties: { path: { type: 'string' }, message: { type: 'string' } },
              },
            },
          },
        },
        Enqueued: {
          type: 'object',
          properties: {
            job: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                type: { type: 'string' },
                lane: { type: 'string' },
                seq: { type: 'integer' },
              },
            },
            links: { type: 'object', properties: { self: { type: 'string' }, events: { type: 'string' } } },
          },
        },
      },
    },
  };
}

const escapeHtml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** The reference page: every route with its summary, and each body's schema. */
export function referencePage(document: Record<string, unknown>): string {
  const paths = document.paths as Record<
    string,
    Record<string, { summary?: string; requestBody?: { content: Record<string, { schema: unknown }> } }>
  >;
  const sections = Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const schema = op.requestBody?.content['application/json']?.schema;
      return `<section><h2><code>${method.toUpperCase()} ${escapeHtml(path)}</code></h2><p>${escapeHtml(op.summary ?? '')}</p>${
        schema
          ? `<details><summary>body schema</summary><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre></details>`
          : ''
      }</section>`;
    }),
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>longshore API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}h2{font-size:1rem}pre{background:#f4f4f4;padding:.5rem;overflow:auto}</style>
</head><body><h1>longshore API v1</h1><p>Bearer token in <code>Authorization</code>; the machine-readable document is <a href="/api/v1/openapi.json">openapi.json</a>.</p>
${sections.join('\n')}</body></html>`;
}
