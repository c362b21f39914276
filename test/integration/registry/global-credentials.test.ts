/**
 * The fleet credential store in a real redis-server: each store and each delete moves the host's
 * generation, in the same transaction; the generation is never reset (a logout and a new login do
 * not bring an old generation back); a snapshot reads the credential with its generation.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '../../../src/dev/private-redis.ts';
import { Sealer, sealContext } from '../../../src/jobs/sealing.ts';
import {
  deleteGlobalCredential,
  globalCredentialGeneration,
  globalCredentialSnapshot,
  saveGlobalCredential,
} from '../../../src/workers/registry/global-credentials.ts';
import { TEST_SECRET } from '../../helpers/processes.ts';

let redis: PrivateRedis;
let client: Redis;
const sealer = new Sealer(TEST_SECRET);
const SERVER = 'https://Registry.Example.com/v2/';
const HOST = 'registry.example.com';

const credential = (password: string) => ({
  server: SERVER,
  username: 'ci',
  password: sealer.seal(password, sealContext.registryGlobalPassword(SERVER)),
});

beforeAll(async () => {
  redis = await startPrivateRedis();
  client = new Redis(redis.url, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

describe('fleet credential generations', () => {
  it('start at 0, move with every store and delete, and never go back', async () => {
    expect(await globalCredentialSnapshot(client, sealer, HOST)).toEqual({ generation: 0 });
    expect(await saveGlobalCredential(client, credential('one'))).toBe(1);
    expect(await globalCredentialSnapshot(client, sealer, HOST)).toEqual({
      generation: 1,
      credential: { server: SERVER, username: 'ci', password: 'one' },
    });
    // The same value stored again (a retried rotation) is still a new generation: harmless, a job
    // that sees it writes the same credential (a no-op).
    expect(await saveGlobalCredential(client, credential('one'))).toBe(2);
    expect(await deleteGlobalCredential(client, SERVER)).toBe(true);
    expect(await globalCredentialSnapshot(client, sealer, HOST)).toEqual({ generation: 3 });
    expect(await deleteGlobalCredential(client, SERVER)).toBe(false);
    expect(await saveGlobalCredential(client, credential('two'))).toBe(5);
    expect(await globalCredentialGeneration(client, 'REGISTRY.example.com')).toBe(5);
    expect((await globalCredentialSnapshot(client, sealer, HOST)).credential?.password).toBe('two');
    // Another host counts on its own.
    expect(await globalCredentialGeneration(client, 'ghcr.io')).toBe(0);
  });
});
