/**
 * The `longshore serve` process: the HTTP API on a port, with its own Redis connection and job
 * client, until SIGTERM/SIGINT (then it stops taking requests, lets the open ones finish, and
 * closes its connections). Settings from the environment, documented in the README:
 * LONGSHORE_API_TOKENS (hashes of the bearer tokens), LONGSHORE_API_RATE_LIMIT (requests per
 * minute per token, default 600), LONGSHORE_SECRET (to seal config values that arrive in a body).
 */

import { loadFleetConfig, requireSecret } from '../../core/env.ts';
import { ConfigError } from '../../core/errors.ts';
import { createLogger } from '../../core/logger.ts';
import { createRedis, waitForRedis } from '../../core/redis.ts';
import { exitOnSignals } from '../../core/signals.ts';
import { JobClient } from '../../jobs/client.ts';
import { Sealer } from '../../jobs/sealing.ts';
import { buildApiServer } from './server.ts';
import { parseTokens } from './tokens.ts';
import { SessionKeys } from './ui/session.ts';
import { parseWebhookSettings } from './webhook-settings.ts';

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;

export function rateLimitPerMinute(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_RATE_LIMIT_PER_MINUTE;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new ConfigError(
      `LONGSHORE_API_RATE_LIMIT must be a whole number of requests per minute, at least 1; got "${value}"`,
    );
  }
  return Number(value);
}

export async function runServe(options: { host: string; port: number }): Promise<void> {
  const config = loadFleetConfig();
  const tokens = parseTokens(process.env.LONGSHORE_API_TOKENS);
  const perMinute = rateLimitPerMinute(process.env.LONGSHORE_API_RATE_LIMIT);
  const webhooks = await parseWebhookSettings();
  const logger = createLogger(config.logLevel, { component: 'serve' });
  // Derived once, at start (scrypt): a body with secret values is sealed without waiting for it.
  const sealer = config.secret
    ? await Sealer.create(requireSecret(config), config.previousSecret)
    : undefined;
  const redis = createRedis(config.redisUrl, 'worker');
  redis.on('error', () => undefined);
  await waitForRedis(redis, config.redisUrl);
  const client = new JobClient(redis, { attempts: config.jobAttempts, backoffMs: config.backoffMs });
  client.onQueueError(() => undefined);
  const server = await buildApiServer({
    redis,
    client,
    tokens,
    rateLimit: { max: perMinute, windowMs: 60_000 },
    webhooks,
    sessionKeys: SessionKeys.fromSecret(config.secret),
    // The path only: a query string may carry a token-like value, and bodies never reach the log.
    onInternalError: (err, request) => logger.error({ err, ...request }, 'HTTP request failed'),
    sealer: () => {
      if (!sealer)
        throw new ConfigError(
          'LONGSHORE_SECRET is not set on the API server: it cannot seal the values in this request',
        );
      return sealer;
    },
  });
  const address = await server.listen({ host: options.host, port: options.port });
  if (tokens.length === 0) {
    logger.warn(
      'LONGSHORE_API_TOKENS is empty: every route but /api/v1/health, /healthz and /readyz answers 401',
    );
  }
  logger.info(
    { address, tokens: tokens.length, rateLimitPerMinute: perMinute, webhookRoutes: webhooks.routes.length },
    'HTTP API listening',
  );
  process.stdout.write(`longshore API listening on ${address}\n`);
  exitOnSignals(logger, 'serve', async () => {
    await server.close();
    await client.close();
    redis.disconnect();
  });
}
