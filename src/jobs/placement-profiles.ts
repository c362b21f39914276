/**
 * Fleet-wide placement profiles, kept in Redis as fleet registry credentials are
 * (src/workers/registry/global-credentials.ts): one hash `{longshore}:profiles`, field = the
 * profile's name, value = JSON `{ nodeSelector, tolerations }`. Written only by the `profiles` job
 * (fleet lane); read by the CLI (`profiles:list`, the `ps:set` check) and by the deploy pipeline,
 * which renders each process's profile into its pods (a Redis read, no cluster request).
 *
 * Why Redis rather than the cluster: a profile holds no secret, every producer can read it without
 * cluster credentials (producers never hold them), and it is fleet state like the credentials.
 * Apps take a changed profile at their next deploy or reconcile (`sync` runs one per app), which
 * renders the new placement and rolls those pods once.
 */
import type { Redis } from 'ioredis';
import { type PlacementProfile, placementProfile } from '../../rules/placement.ts';
import { KEY_PREFIX } from './keys.ts';

const KEY = `${KEY_PREFIX}:profiles`;

export async function saveProfile(redis: Redis, name: string, profile: PlacementProfile): Promise<void> {
  await redis.hset(KEY, name, JSON.stringify(placementProfile.parse(profile)));
}

/** Whether it existed. */
export async function deleteProfile(redis: Redis, name: string): Promise<boolean> {
  return (await redis.hdel(KEY, name)) > 0;
}

/** Every profile, by name (sorted). A stored value that no longer parses is left out. */
export async function listProfiles(redis: Redis): Promise<Record<string, PlacementProfile>> {
  const raw = await redis.hgetall(KEY);
  const out: Record<string, PlacementProfile> = {};
  for (const name of Object.keys(raw).sort()) {
    const parsed = parseStored(raw[name]!);
    if (parsed) out[name] = parsed;
  }
  return out;
}

/** The named profiles that exist (one round trip); a missing name is absent from the answer. */
export async function readProfiles(
  redis: Redis,
  names: readonly string[],
): Promise<Record<string, PlacementProfile>> {
  if (names.length === 0) return {};
  const values = await redis.hmget(KEY, ...names);
  const out: Record<string, PlacementProfile> = {};
  names.forEach((name, i) => {
    const parsed = values[i] ? parseStored(values[i]!) : undefined;
    if (parsed) out[name] = parsed;
  });
  return out;
}

function parseStored(text: string): PlacementProfile | undefined {
  try {
    const parsed = placementProfile.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
