/**
 * The Redis a test fleet runs on: a private redis-server (the default), or with
 * `LONGSHORE_TEST_REDIS=cluster` a 3-primary Redis Cluster (./redis-cluster.ts), so the same test
 * bodies prove the fleet on both (test/cluster/ runs them so, with LONGSHORE_QUEUE_SHARDS=3).
 * Clients come from `connect()`: a plain ioredis client does not follow a cluster's redirections.
 */
import type { Redis } from 'ioredis';
import { createRedis } from '../../src/core/redis.ts';
import { type PrivateRedis, startPrivateRedis } from '../../src/dev/private-redis.ts';
import { allShards, shardPrefix } from '../../src/jobs/shards.ts';
import { startRedisCluster } from './redis-cluster.ts';

/** A private Redis's handle; on a cluster, restarts and the data directory are not offered. */
export interface TestRedis extends PrivateRedis {
  readonly cluster: boolean;
  /** A client for the test (worker policy: commands wait through an outage). */
  connect(): Redis;
  /** On a cluster: the port of the primary serving `key`'s slot. */
  primaryOf?(key: string): Promise<number>;
  stop(): Promise<void>;
}

export function testOnCluster(): boolean {
  return process.env.LONGSHORE_TEST_REDIS === 'cluster';
}

function connectTo(url: string): Redis {
  const client = createRedis(url, 'worker');
  client.on('error', () => undefined);
  return client;
}

export async function startTestRedis(): Promise<TestRedis> {
  if (!testOnCluster()) {
    const server = await startPrivateRedis();
    return Object.assign(server, { cluster: false, connect: () => connectTo(server.url) });
  }
  const cluster = await startRedisCluster();
  // Redis Cluster places slots, not shards: shard i's tag goes to primary i mod 3 here, as an
  // operator would place them (docs/redis-cluster.md, "Placing shards on primaries").
  for (const shard of allShards())
    await cluster.placeKey(shardPrefix(shard), cluster.ports[shard % cluster.ports.length]!);
  const unsupported = async () => {
    throw new Error('restarting Redis is not part of the cluster tests');
  };
  return {
    url: cluster.url,
    port: cluster.ports[0]!,
    dir: '',
    pid: undefined,
    cluster: true,
    connect: () => connectTo(cluster.url),
    primaryOf: (key) => cluster.primaryOf(key),
    stop: () => cluster.stop(),
    kill: unsupported,
    start: unsupported,
  };
}
