/**
 * Every assembled ordering script compiles in a real redis-server (`SCRIPT LOAD`: syntax errors,
 * a body Redis refuses) under the SHA1 that ioredis sends with EVALSHA, so the NOSCRIPT fallback
 * and the script cache see the same text.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateRedis, startPrivateRedis } from '../../../src/dev/private-redis.ts';
import { ORDERING_SCRIPTS, orderingScripts } from '../../../src/jobs/ordering/scripts.ts';

describe('the ordering scripts load into Redis', () => {
  let redis: PrivateRedis;
  let client: Redis;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    client = new Redis(redis.url, { maxRetriesPerRequest: null });
  });

  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  it.each(ORDERING_SCRIPTS)('%s', async (name) => {
    const { lua } = orderingScripts()[name];
    const sha = (await client.call('SCRIPT', 'LOAD', lua)) as string;
    expect(sha).toBe(createHash('sha1').update(lua).digest('hex'));
    expect(await client.call('SCRIPT', 'EXISTS', sha)).toEqual([1]);
  });

  it('and a script with a syntax error would not', async () => {
    const broken = `${orderingScripts().acquire.lua}\nend`;
    await expect(client.call('SCRIPT', 'LOAD', broken)).rejects.toThrow(/Error compiling script/);
  });
});
