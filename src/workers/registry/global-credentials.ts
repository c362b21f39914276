/**
 * Fleet-wide registry credentials (`registry:login --global`), kept in Redis: one hash
 * `{longshore}:registry:global`, field = the server's host (normalized), value = JSON
 * `{ server, username, password }` where `password` is the value the producer sealed
 * (sealContext.registryGlobalPassword(server)) — stored as sealed, never opened into Redis.
 *
 * Why Redis and not a Secret in the system namespace: every job payload that carries a secret is
 * already sealed in Redis, and the deploy pipeline consults this on every deploy of an app without
 * its own credential; a Redis read adds no request to the cluster. If Redis is lost, the pull
 * Secrets already written keep working (deploys keep them, kept-pull-secret.ts) until the
 * operator runs `registry:login --global` again.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { normalizeRegistryServer } from '../../apps/registry-host.ts';
import { KEY_PREFIX } from '../../jobs/keys.ts';
import { type Sealer, sealContext, sealedValue } from '../../jobs/sealing.ts';

const KEY = `${KEY_PREFIX}:registry:global`;

const stored = z.object({ server: z.string(), username: z.string(), password: sealedValue }).strict();

export type StoredGlobalCredential = z.infer<typeof stored>;

export interface GlobalCredential {
  server: string;
  username: string;
  password: string;
}

export async function saveGlobalCredential(redis: Redis, credential: StoredGlobalCredential): Promise<void> {
  await redis.hset(KEY, normalizeRegistryServer(credential.server), JSON.stringify(stored.parse(credential)));
}

/** The credential for the registry `host` (as registryHostOf gives it), opened; undefined when none. */
export async function globalCredentialFor(
  redis: Redis,
  sealer: Sealer,
  host: string,
): Promise<GlobalCredential | undefined> {
  const raw = await redis.hget(KEY, normalizeRegistryServer(host));
  if (raw === null) return undefined;
  const credential = stored.parse(JSON.parse(raw));
  return {
    server: credential.server,
    username: credential.username,
    password: sealer.open(credential.password, sealContext.registryGlobalPassword(credential.server)),
  };
}

/** Forgets the fleet credential for `server`; whether there was one. */
export async function deleteGlobalCredential(redis: Redis, server: string): Promise<boolean> {
  return (await redis.hdel(KEY, normalizeRegistryServer(server))) > 0;
}
