/**
 * The chaos checks' notion of a clear failure reason (test/chaos/checks.ts `unclear`): what a
 * handler says to a user passes; empty reasons and JavaScript runtime errors — bugs, not reasons —
 * do not.
 */
import { describe, expect, it } from 'vitest';
import { unclear } from '../../chaos/checks.ts';

describe('chaos: clear failure reasons', () => {
  it('accepts reasons a person can act on', () => {
    for (const reason of [
      'app shop does not exist',
      'app chaos3 was renamed to chaos3r1',
      'invalid storage:mount shop: mount.entry: storage entry shop-s1 does not exist',
      'release config-shop revision 3 is unreadable: chunk longshore.chunk.abc is missing',
    ])
      expect(unclear(reason), reason).toBe(false);
  });

  it('refuses empty reasons and runtime errors', () => {
    for (const reason of [
      '',
      '  ',
      undefined,
      'undefined',
      '[object Object]',
      'LABEL_RELEASE is not defined',
      'ReferenceError: LABEL_RELEASE is not defined',
      "Cannot read properties of undefined (reading 'metadata')",
      'TypeError: x.map is not a function',
      "Cannot access 'store' before initialization",
    ])
      expect(unclear(reason), String(reason)).toBe(true);
  });
});
