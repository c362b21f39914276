/**
 * Push webhooks from GitHub and Gitea/Forgejo (`POST /api/v1/webhooks/github`, `…/gitea`): a push
 * to a mapped repository's branch enqueues a `deploy` of the image its template names for the
 * pushed commit (webhook-settings.ts). A delivery is accepted only with a valid HMAC-SHA256 of its
 * exact body under LONGSHORE_WEBHOOK_SECRET (GitHub's `X-Hub-Signature-256: sha256=…`, Gitea's and
 * Forgejo's `X-Gitea-Signature` / `X-Forgejo-Signature`), compared in constant time; and once:
 * its delivery id is remembered in Redis for a week, so a replayed or redelivered delivery
 * deploys nothing twice. A push carries no file contents: the deploy keeps the app's processes
 * (docs/http-api.md, "Webhooks").
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { InvalidInputError, NotFoundError } from '../../core/errors.ts';
import type { JobClient } from '../../jobs/client.ts';
import { imageFor } from '../git/image-template.ts';
import type { WebhookSettings } from './webhook-settings.ts';

/** How long a delivery id is remembered: longer than any forge retries or offers redelivery in the UI. */
export const DELIVERY_MEMORY_SECONDS = 7 * 24 * 3600;
const ZERO_SHA = /^0+$/;

type Forge = 'github' | 'gitea';

interface PushEvent {
  ref?: string;
  after?: string;
  deleted?: boolean;
  repository?: { full_name?: string };
  pusher?: { name?: string; login?: string; username?: string };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The signature the delivery carries, as raw bytes, or undefined. */
function signatureOf(forge: Forge, request: FastifyRequest): Buffer | undefined {
  const hub = header(request, 'x-hub-signature-256');
  const hex =
    forge === 'github'
      ? hub?.startsWith('sha256=')
        ? hub.slice(7)
        : undefined
      : (header(request, 'x-gitea-signature') ??
        header(request, 'x-forgejo-signature') ??
        hub?.replace(/^sha256=/, ''));
  return hex && /^[0-9a-f]{64}$/i.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

export function signBody(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

function reply401(reply: FastifyReply, message: string) {
  return reply.code(401).send({ error: 'unauthorized', message });
}

export function registerWebhooks(
  server: FastifyInstance,
  options: { redis: Redis; client: JobClient; settings: WebhookSettings },
): void {
  // Encapsulated: these routes keep the body's exact bytes (the signature is over them).
  server.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    for (const forge of ['github', 'gitea'] as const) {
      scope.post(`/api/v1/webhooks/${forge}`, async (request, reply) => {
        const { secret, routes } = options.settings;
        if (!secret)
          throw new NotFoundError('webhooks are not configured on this server (LONGSHORE_WEBHOOK_SECRET)');
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const given = signatureOf(forge, request);
        if (!given)
          return reply401(
            reply,
            `the delivery has no HMAC-SHA256 signature header (${forge === 'github' ? 'X-Hub-Signature-256' : 'X-Gitea-Signature or X-Forgejo-Signature'})`,
          );
        const expected = Buffer.from(signBody(secret, body), 'hex');
        if (!timingSafeEqual(given, expected))
          return reply401(reply, 'the signature does not match the body under the configured secret');

        const event =
          header(request, forge === 'github' ? 'x-github-event' : 'x-gitea-event') ??
          header(request, 'x-forgejo-event');
        const delivery =
          header(request, forge === 'github' ? 'x-github-delivery' : 'x-gitea-delivery') ??
          header(request, 'x-forgejo-delivery');
        if (!delivery || !/^[\w-]{1,128}$/.test(delivery)) {
          throw new InvalidInputError([
            { path: 'delivery', message: 'the delivery id header is missing or malformed' },
          ]);
        }
        if (event === 'ping') return reply.code(200).send({ status: 'pong' });
        if (event !== 'push')
          return reply
            .code(202)
            .send({ status: 'ignored', reason: `${event ?? 'unnamed'} events are not deployed` });

        let push: PushEvent;
        try {
          push = JSON.parse(body.toString('utf8')) as PushEvent;
        } catch {
          throw new InvalidInputError([{ path: 'body', message: 'is not JSON' }]);
        }
        const repository = push.repository?.full_name;
        const ref = push.ref;
        if (!repository || !ref)
          throw new InvalidInputError([
            { path: 'body', message: 'a push event names its repository and ref' },
          ]);
        if (!ref.startsWith('refs/heads/'))
          return reply.code(202).send({ status: 'ignored', reason: `${ref} is not a branch` });
        const branch = ref.slice(11);
        const candidates = routes.filter((r) => r.repository.toLowerCase() === repository.toLowerCase());
        if (candidates.length === 0)
          throw new NotFoundError(`no app is mapped to ${repository} (LONGSHORE_WEBHOOKS)`);
        const route = candidates.find((r) => r.branch === branch);
        if (!route) {
          return reply.code(202).send({
            status: 'ignored',
            reason: `${ref} is not a deploy branch of ${repository} (${candidates.map((r) => r.branch).join(', ')})`,
          });
        }
        const sha = push.after ?? '';
        if (push.deleted || ZERO_SHA.test(sha))
          return reply.code(202).send({ status: 'ignored', reason: `${ref} was deleted: nothing to deploy` });
        if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha))
          throw new InvalidInputError([{ path: 'after', message: 'is not a commit id' }]);

        // Claimed before enqueueing, given back if the enqueue fails: a redelivery then deploys.
        const key = `longshore:webhook-delivery:${forge}:${delivery}`;
        const claimed = await options.redis.set(key, 'pending', 'EX', DELIVERY_MEMORY_SECONDS, 'NX');
        if (claimed === null) {
          const job = await options.redis.get(key);
          return reply.code(200).send({
            status: 'duplicate',
            delivery,
            ...(job && job !== 'pending' ? { job: { id: job } } : {}),
          });
        }
        const pusher = push.pusher?.name ?? push.pusher?.username ?? push.pusher?.login ?? 'unknown';
        try {
          const job = await options.client.enqueue(
            'deploy',
            { app: route.app, image: imageFor(route.image, route.app, sha), source: { sha, ref, pusher } },
            `webhook:${forge}:${repository}`,
          );
          await options.redis.set(key, job.id, 'EX', DELIVERY_MEMORY_SECONDS);
          return reply.code(202).send({
            status: 'enqueued',
            job,
            links: { self: `/api/v1/jobs/${job.id}`, events: `/api/v1/jobs/${job.id}/events` },
          });
        } catch (err) {
          await options.redis.del(key).catch(() => undefined);
          throw err;
        }
      });
    }
  });
}
