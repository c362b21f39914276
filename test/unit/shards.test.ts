/** Queue shards: the documented hash, K = 1 keeping today's key names, and the settings' checks. */
import { describe, expect, it } from 'vitest';
import { loadFleetConfig } from '../../src/core/env.ts';
import { clusterNodesOf, redisAddress } from '../../src/core/redis.ts';
import { keys } from '../../src/jobs/keys.ts';
import {
  fnv1a32,
  lanesByShard,
  parseShardCount,
  parseWorkerShards,
  shardOfJobId,
  shardOfLane,
  shardPrefix,
} from '../../src/jobs/shards.ts';

describe('the shard of a lane', () => {
  it('is FNV-1a 32 of the lane id mod K (published test vectors, then stable values)', () => {
    // http://www.isthe.com/chongo/tech/comp/fnv/ test vectors for FNV-1a 32.
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
    expect([shardOfLane('app.web', 3), shardOfLane('app.alpha', 3), shardOfLane('storage.pg', 4)]).toEqual([
      fnv1a32('app.web') % 3,
      fnv1a32('app.alpha') % 3,
      fnv1a32('storage.pg') % 4,
    ]);
  });

  it('puts an ordered job in its lane’s shard, and every lane in shard 0 with one shard', () => {
    expect(shardOfJobId('app.web.17', 3)).toBe(shardOfLane('app.web', 3));
    expect(shardOfLane('app.web', 1)).toBe(0);
    expect(shardOfJobId('sync.fleet.x0a1b2c', 1)).toBe(0);
  });

  it('keeps today’s key names with one shard (the default)', () => {
    expect(shardPrefix(0)).toBe('{longshore}');
    expect(shardPrefix(2)).toBe('{longshore-2}');
    expect(keys.lanePending('app.web')).toBe('{longshore}:lane:app.web:pending');
    expect(keys.job('app.web.3')).toBe('{longshore}:jobs:app.web.3');
    expect(keys.status('app.web')).toBe('{longshore}:status:app.web');
    expect(keys.bull(0)).toBe('{longshore}:jobs:');
    expect(keys.statusLanes(0)).toBe('{longshore}:status:lanes');
    expect([...lanesByShard(['app.a', 'app.b']).keys()]).toEqual([0]);
  });
});

describe('settings', () => {
  it('refuses a bad LONGSHORE_QUEUE_SHARDS or LONGSHORE_WORKER_SHARDS, naming it', () => {
    expect(parseShardCount(undefined)).toBe(1);
    expect(parseShardCount('4')).toBe(4);
    for (const bad of ['0', '-1', 'two', '257'])
      expect(() => parseShardCount(bad)).toThrow(/LONGSHORE_QUEUE_SHARDS/);
    expect(parseWorkerShards(undefined, 3)).toEqual([0, 1, 2]);
    expect(parseWorkerShards('2, 0,2', 3)).toEqual([0, 2]);
    expect(() => parseWorkerShards('3', 3)).toThrow(/LONGSHORE_WORKER_SHARDS.*from 0 to 2.*is 3/);
    expect(() => loadFleetConfig({ LONGSHORE_QUEUE_SHARDS: 'x' })).toThrow(/LONGSHORE_QUEUE_SHARDS/);
    expect(() => loadFleetConfig({ LONGSHORE_WORKER_SHARDS: '0;1' })).toThrow(/LONGSHORE_WORKER_SHARDS/);
  });

  it('reads cluster nodes from LONGSHORE_REDIS_CLUSTER or a REDIS_URL listing them', () => {
    const config = loadFleetConfig({
      REDIS_URL: 'rediss://user:pw@ignored:6379',
      LONGSHORE_REDIS_CLUSTER: 'h1:7000, h2:7001',
    });
    expect(config.redisUrl).toBe('rediss://user:pw@h1:7000,h2:7001');
    expect(clusterNodesOf(config.redisUrl)).toEqual([
      { host: 'h1', port: 7000 },
      { host: 'h2', port: 7001 },
    ]);
    expect(clusterNodesOf('redis://127.0.0.1:6379')).toBeUndefined();
    expect(redisAddress('redis://a:1,b:2')).toBe('cluster a:1,b:2');
    expect(() => loadFleetConfig({ LONGSHORE_REDIS_CLUSTER: 'h1' })).toThrow(/LONGSHORE_REDIS_CLUSTER/);
  });
});
