/**
 * A real Redis Cluster of three primaries (no replicas) on free loopback ports, for the tests that
 * run on Redis Cluster: three `redis-server --cluster-enabled yes`, joined by
 * `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes`, usable once every node reports
 * `cluster_state:ok`. In-memory (no AOF): these tests prove routing and slots, not durability.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, redisServerBinary } from '../../src/dev/private-redis.ts';
import { until } from './wait.ts';

export interface RedisClusterHandle {
  /** `redis://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`: REDIS_URL listing the nodes. */
  readonly url: string;
  readonly ports: number[];
  /** The port of the primary serving `key`'s slot. */
  primaryOf(key: string): Promise<number>;
  /**
   * Moves the (empty) slot of `key` to the primary on `port`, the manual resharding of the Redis
   * Cluster specification (https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/,
   * "CLUSTER SETSLOT"): IMPORTING on the target, MIGRATING on the source, then NODE everywhere.
   */
  placeKey(key: string, port: number): Promise<void>;
  stop(): Promise<void>;
}

const NODES = 3;

export async function startRedisCluster(): Promise<RedisClusterHandle> {
  const bin = redisServerBinary();
  const cli = process.env.REDIS_CLI_BIN ?? 'redis-cli';
  const dir = mkdtempSync(join(tmpdir(), 'longshore-cluster-'));
  const ports: number[] = [];
  for (let tries = 0; ports.length < NODES && tries < 100; tries++) {
    const port = await freePort();
    // A node also listens on port + 10000 (the cluster bus): both must be free, and distinct.
    if (port > 55_000 || ports.includes(port)) continue;
    ports.push(port);
  }
  if (ports.length < NODES) throw new Error('no free loopback ports for the cluster');
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      const child = spawn(
        bin,
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          '5000',
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
          '--logfile',
          join(dir, `redis-${port}.log`),
        ],
        { stdio: 'ignore' },
      );
      children.push(child);
      // A parent that exits takes its cluster with it.
      const reap = () => child.kill('SIGKILL');
      process.once('exit', reap);
      child.once('exit', () => process.off('exit', reap));
    }
    for (const port of ports) await until(() => ping(port), `redis-server on ${port} to answer`);
    const created = spawnSync(
      cli,
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (created.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${created.stderr || created.stdout}`);
    for (const port of ports)
      await until(() => clusterOk(port), `node ${port} to report cluster_state:ok`, { timeoutMs: 30_000 });
  } catch (err) {
    await stop();
    throw err;
  }
  const primaryOf = async (key: string): Promise<number> => {
    const client = new Redis({ port: ports[0]!, host: '127.0.0.1', lazyConnect: true });
    try {
      await client.connect();
      const slot = Number(await client.call('CLUSTER', 'KEYSLOT', key));
      const ranges = (await client.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`no node serves slot ${slot}`);
      return Number(range[2][1]);
    } finally {
      client.disconnect();
    }
  };
  return {
    url: `redis://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    primaryOf,
    async placeKey(key, port) {
      const source = await primaryOf(key);
      if (source === port) return;
      const slot = String(await withNode(port, (c) => c.call('CLUSTER', 'KEYSLOT', key)));
      const idOf = async (p: number) => String(await withNode(p, (c) => c.call('CLUSTER', 'MYID')));
      const [sourceId, targetId] = [await idOf(source), await idOf(port)];
      await withNode(port, (c) => c.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', sourceId));
      await withNode(source, (c) => c.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', targetId));
      for (const p of [port, source, ...ports.filter((q) => q !== port && q !== source)])
        await withNode(p, (c) => c.call('CLUSTER', 'SETSLOT', slot, 'NODE', targetId));
      for (const p of ports)
        await until(
          async () => (await slotOwner(p, Number(slot))) === port || undefined,
          `node ${p} to see slot ${slot} on ${port}`,
          { timeoutMs: 15_000 },
        );
    },
    stop,
  };
}

/** The port of the primary node `port` believes serves `slot`. */
async function slotOwner(port: number, slot: number): Promise<number | undefined> {
  const ranges = await withNode(
    port,
    (c) => c.call('CLUSTER', 'SLOTS') as Promise<[number, number, [string, number]][]>,
  );
  const range = ranges?.find(([from, to]) => slot >= from && slot <= to);
  return range ? Number(range[2][1]) : undefined;
}

async function withNode<T>(port: number, fn: (client: Redis) => Promise<T>): Promise<T | undefined> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await fn(client);
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

async function ping(port: number): Promise<true | undefined> {
  return (await withNode(port, (c) => c.ping())) === 'PONG' || undefined;
}

async function clusterOk(port: number): Promise<true | undefined> {
  const info = await withNode(port, (c) => c.call('CLUSTER', 'INFO') as Promise<string>);
  return info?.includes('cluster_state:ok') || undefined;
}
