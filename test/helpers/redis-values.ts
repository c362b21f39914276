/** Every key and value in a Redis database as strings: to prove a secret appears nowhere in clear. */
import type { Cluster, Redis } from 'ioredis';

/** On a Redis Cluster, every primary's keys (KEYS answers for one node only). */
export async function everyValueInRedis(client: Redis): Promise<string[]> {
  if ('nodes' in client && typeof (client as unknown as Cluster).nodes === 'function') {
    const primaries = (client as unknown as Cluster).nodes('master');
    return (await Promise.all(primaries.map((node) => valuesOfNode(node)))).flat();
  }
  return valuesOfNode(client);
}

async function valuesOfNode(client: Redis): Promise<string[]> {
  const values: string[] = [];
  for (const key of await client.keys('*')) {
    values.push(key);
    const type = await client.type(key);
    if (type === 'string') values.push((await client.get(key)) ?? '');
    else if (type === 'hash') values.push(...Object.entries(await client.hgetall(key)).flat());
    else if (type === 'list') values.push(...(await client.lrange(key, 0, -1)));
    else if (type === 'set') values.push(...(await client.smembers(key)));
    else if (type === 'zset') values.push(...(await client.zrange(key, 0, -1)));
    else if (type === 'stream')
      values.push(...(await client.xrange(key, '-', '+')).flatMap(([id, fields]) => [id, ...fields]));
  }
  return values;
}
