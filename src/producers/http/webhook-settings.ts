/**
 * Which pushes the webhooks deploy: `LONGSHORE_WEBHOOKS`, a JSON list of
 * `{ "repository": "team/shop", "branch": "main", "app": "shop", "image": "registry.example.com/{app}:{sha}" }`
 * (branch defaults to `main`), and the HMAC secret the forge signs deliveries with,
 * `LONGSHORE_WEBHOOK_SECRET`. Checked when the server starts: a mistake is a ConfigError naming
 * the entry and the field, not a webhook that silently deploys nothing.
 */
import { ConfigError } from '../../core/errors.ts';
import { imageFor } from '../git/image-template.ts';

export interface WebhookRoute {
  repository: string;
  branch: string;
  app: string;
  /** Image template: `{app}`, `{sha}`, `{short_sha}` replaced (as the git hook's). */
  image: string;
}

export interface WebhookSettings {
  secret?: string;
  routes: WebhookRoute[];
}

export const WEBHOOK_SECRET_MIN = 16;

export async function parseWebhookSettings(env: NodeJS.ProcessEnv = process.env): Promise<WebhookSettings> {
  const secret = env.LONGSHORE_WEBHOOK_SECRET || undefined;
  if (secret !== undefined && secret.length < WEBHOOK_SECRET_MIN) {
    throw new ConfigError(`LONGSHORE_WEBHOOK_SECRET must be at least ${WEBHOOK_SECRET_MIN} characters`);
  }
  const raw = env.LONGSHORE_WEBHOOKS?.trim();
  if (!raw) return { ...(secret ? { secret } : {}), routes: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new ConfigError(`LONGSHORE_WEBHOOKS is not JSON: ${(err as Error).message}`);
  }
  const { z } = await import('zod');
  const { appName, imageRef } = await import('../../jobs/schemas/common.ts');
  const route = z
    .object({
      repository: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'must be OWNER/NAME as the forge names it'),
      branch: z.string().min(1).default('main'),
      app: appName,
      image: z
        .string()
        .refine((t) => t.includes('{sha}') || t.includes('{short_sha}'), 'must contain {sha} or {short_sha}'),
    })
    .strict()
    .superRefine((r, ctx) => {
      const sample = imageFor(r.image, r.app, '0'.repeat(40));
      if (!imageRef.safeParse(sample).success)
        ctx.addIssue({
          code: 'custom',
          path: ['image'],
          message: `gives "${sample}", not an image reference`,
        });
    });
  const result = z.array(route).safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ConfigError(
      `LONGSHORE_WEBHOOKS ${issue.path.map(String).join('.') || '(the list)'}: ${issue.message}`,
    );
  }
  const seen = new Set<string>();
  for (const r of result.data) {
    const key = `${r.repository.toLowerCase()}@${r.branch}`;
    if (seen.has(key)) throw new ConfigError(`LONGSHORE_WEBHOOKS maps ${r.repository}@${r.branch} twice`);
    seen.add(key);
  }
  if (result.data.length > 0 && !secret) {
    throw new ConfigError(
      'LONGSHORE_WEBHOOKS is set but LONGSHORE_WEBHOOK_SECRET is not: deliveries could not be verified',
    );
  }
  return { ...(secret ? { secret } : {}), routes: result.data };
}
