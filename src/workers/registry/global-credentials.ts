/**
 * Fleet-wide registry credentials (`registry:login --global`), kept in Redis: one hash
 * `{longshore}:registry:global`, field = the server's host (normalized), value = JSON
 * `{ server, username, password }` where `password` is the value the producer sealed
 * (sealContext.registryGlobalPassword(server)) — stored as sealed, never opened into Redis.
 *
 * Next to it, `{longshore}:registry:global:generation` (field = host, an integer) counts the
 * changes of each host's credential: every store and every delete increments it, in the same
 * transaction, and it is never reset (a delete and a new login make a new generation, not an old
 * one again). A deploy reads the credential with its generation, and after writing
 * `pull-secret-{app}` checks whether the generation moved: a rotation ran meanwhile, and its
 * Secret may have been overwritten by this deploy's older value (src/workers/deploy/
 * fleet-pull-secret.ts; docs/apps.md, "Registry credentials").
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
import { sealedValue } from '../../jobs/schemas/sealed-value.ts';
import { type Sealer, sealContext } from '../../jobs/sealing.ts';

const KEY = `${KEY_PREFIX}:registry:global`;
const GENERATIONS = `${KEY_PREFIX}:registry:global:generation`;

const stored = z.object({ server: z.string(), username: z.string(), password: sealedValue }).strict();

export type StoredGlobalCredential = z.infer<typeof stored>;

export interface GlobalCredential {
  server: string;
  username: string;
  password: string;
}

/** The credential of a host (undefined when none) and the generation it was read at. */
export interface GlobalCredentialSnapshot {
  generation: number;
  credential?: GlobalCredential;
}

/** The replies of a MULTI, or the first error in it. */
async function exec(multi: ReturnType<Redis['multi']>): Promise<unknown[]> {
  const replies = (await multi.exec()) ?? [];
  for (const [err] of replies) if (err) throw err;
  return replies.map(([, reply]) => reply);
}

/** Stores the credential and moves its host's generation, in one transaction; the new generation. */
export async function saveGlobalCredential(
  redis: Redis,
  credential: StoredGlobalCredential,
): Promise<number> {
  const host = normalizeRegistryServer(credential.server);
  const [, generation] = await exec(
    redis
      .multi()
      .hset(KEY, host, JSON.stringify(stored.parse(credential)))
      .hincrby(GENERATIONS, host, 1),
  );
  return Number(generation);
}

/**
 * The credential for the registry `host` (as registryHostOf gives it), opened (undefined when
 * none), and its generation, read together (one transaction).
 */
export async function globalCredentialSnapshot(
  redis: Redis,
  sealer: Sealer,
  host: string,
): Promise<GlobalCredentialSnapshot> {
  const field = normalizeRegistryServer(host);
  const [raw, generation] = await exec(redis.multi().hget(KEY, field).hget(GENERATIONS, field));
  const snapshot = { generation: Number(generation ?? 0) };
  if (raw === null || raw === undefined) return snapshot;
  const credential = stored.parse(JSON.parse(String(raw)));
  return {
    ...snapshot,
    credential: {
      server: credential.server,
      username: credential.username,
      password: sealer.open(credential.password, sealContext.registryGlobalPassword(credential.server)),
    },
  };
}

/** The generation of `host`'s credential: 0 before its first login, then one more per change. */
export async function globalCredentialGeneration(redis: Redis, host: string): Promise<number> {
  return Number((await redis.hget(GENERATIONS, normalizeRegistryServer(host))) ?? 0);
}

/** Forgets the fleet credential for `server` (moving its generation); whether there was one. */
export async function deleteGlobalCredential(redis: Redis, server: string): Promise<boolean> {
  const host = normalizeRegistryServer(server);
  const [deleted] = await exec(redis.multi().hdel(KEY, host).hincrby(GENERATIONS, host, 1));
  return Number(deleted) > 0;
}
