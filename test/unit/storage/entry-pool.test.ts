import { describe, expect, it } from 'vitest';
import { EntryPool } from '../../../src/storage/entry-pool.ts';
import type { StoredEntry } from '../../../src/storage/manifest.ts';

const digest = (c: string) => c.repeat(64);
const entry = (name: string, d: string, chunk = 'longshore.chunk.a'): StoredEntry => ({
  type: 'object',
  ref: { apiVersion: 'v1', kind: 'Service', namespace: 'web', name },
  digest: digest(d),
  size: 100,
  stored: 60,
  parts: [{ chunk, key: `e-${d}`, bytes: 60 }],
});

describe('EntryPool', () => {
  it('hands out one copy per distinct entry', () => {
    const pool = new EntryPool();
    const first = entry('web', 'a');
    const a = pool.share(first);
    expect(a).toBe(first);
    expect(pool.share(entry('web', 'a'))).toBe(a);
    expect(a).toEqual(entry('web', 'a'));
    // Any field that differs makes another entry.
    expect(pool.share(entry('web', 'b'))).not.toBe(a);
    expect(pool.share(entry('other', 'a'))).not.toBe(a);
    const elsewhere = pool.share(entry('web', 'a', 'longshore.chunk.b'));
    expect(elsewhere).not.toBe(a);
    // The same object stored in two places: both are kept, each found again.
    expect(pool.share(entry('web', 'a', 'longshore.chunk.b'))).toBe(elsewhere);
    expect(pool.share(entry('web', 'a'))).toBe(a);
    expect(pool.share({ ...entry('web', 'a'), ref: undefined, type: 'chart' })).not.toBe(a);
    expect(pool.size).toBe(5);
  });

  it('keeps only the entries the given manifests use', () => {
    const pool = new EntryPool();
    const kept = pool.share(entry('web', 'a'));
    pool.share(entry('web', 'b'));
    pool.retain([[kept]]);
    expect(pool.size).toBe(1);
    expect(pool.share(entry('web', 'a'))).toBe(kept);
    expect(pool.share(entry('web', 'b'))).not.toBe(kept);
    expect(pool.size).toBe(2);
  });
});
