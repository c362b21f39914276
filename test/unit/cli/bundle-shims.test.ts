// The CLI bundle gives bullmq a small stand-in for semver (bin/bundle-shims/semver-for-bullmq.js,
// docs/cli-startup.md): it must answer bullmq's Redis version check exactly as semver does.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import * as shim from '../../../bin/bundle-shims/semver-for-bullmq.js';

// bullmq's own copy, the one the bundle replaces (node_modules/bullmq's semver dependency).
const semver = createRequire(createRequire(import.meta.url).resolve('bullmq'))('semver') as {
  coerce(v: unknown): unknown;
  valid(v: unknown): string | null;
  lt(a: unknown, b: unknown): boolean;
};

/** bullmq's isRedisVersionLowerThan, with either implementation; a throw is part of the answer. */
function lowerThan(impl: typeof semver | typeof shim, version: unknown, minimum: string): string {
  try {
    return String(impl.lt(impl.valid(impl.coerce(version)), minimum));
  } catch (err) {
    return `throws ${(err as Error).constructor.name}: ${(err as Error).message}`;
  }
}

// What INFO's redis_version / valkey_version hold, and what else a server or proxy could send.
const VERSIONS: unknown[] = [
  '7.2.4',
  '6.2.0',
  '6.0.5',
  '6.0.6',
  '5.0.14',
  '7.0.8',
  '7.0.7',
  '8.0.0-rc1',
  '255.255.255',
  '7.4.0\n',
  'v7.2',
  '7',
  '7.2.4-valkey',
  'valkey 8.1.1',
  '01.2.3',
  '1.02',
  '1.2.3.4',
  '99999999999999999.1.1',
  'x9.0.1y',
  '',
  'abc',
  7,
  6.2,
  undefined,
  null,
];
// The minimums bullmq passes (redis-connection.js, redis-queue-backend.js, redis-relay-backend.js).
const MINIMUMS = ['5.0.0', '6.2.0', '6.0.0', '7.0.8', '6.0.6', '7.2.0'];

describe('the semver stand-in bullmq gets in the CLI bundle', () => {
  it('answers every version check as semver does, throws included', () => {
    for (const version of VERSIONS) {
      expect(shim.valid(shim.coerce(version)), `valid(coerce(${JSON.stringify(version)}))`).toBe(
        semver.valid(semver.coerce(version)),
      );
      for (const minimum of MINIMUMS) {
        expect(lowerThan(shim, version, minimum), `${JSON.stringify(version)} < ${minimum}`).toBe(
          lowerThan(semver, version, minimum),
        );
      }
    }
  });

  it('agrees on every ordered pair of generated versions', () => {
    const versions: string[] = [];
    for (const major of [0, 1, 6, 7, 10]) {
      for (const minor of [0, 2, 9, 10])
        for (const patch of [0, 5, 6, 8, 14]) versions.push(`${major}.${minor}.${patch}`);
    }
    for (const a of versions) {
      for (const b of versions) expect(shim.lt(a, b), `${a} < ${b}`).toBe(semver.lt(a, b));
    }
  });
});
