import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { secretDataBytes } from '../../../src/storage/limits.ts';
import { chunkName, type EntryToPack, packEntries } from '../../../src/storage/packing.ts';
import { entriesToCompact } from '../../../src/storage/revision-writer.ts';

const entry = (i: number, size: number, random = true): EntryToPack => ({
  digest: (i.toString(16).padStart(4, '0') + 'ab'.repeat(30)).slice(0, 64),
  gz: random ? randomBytes(size) : Buffer.alloc(size, i),
});

const reassemble = (packing: ReturnType<typeof packEntries>, digest: string) => {
  const byName = new Map(packing.chunks.map((c) => [c.name, c.data]));
  return Buffer.concat(packing.locations.get(digest)!.map((p) => byName.get(p.chunk)!.get(p.key)!));
};

describe('packing entries into chunks', () => {
  const budget = 64 * 1024;

  it('keeps every chunk within the budget, keys included, and puts small entries whole', () => {
    const entries = Array.from({ length: 40 }, (_, i) => entry(i, 5_000));
    const packing = packEntries(entries, budget, 'scope');
    for (const chunk of packing.chunks) {
      expect(chunk.bytes).toBe(secretDataBytes(chunk.data));
      expect(chunk.bytes).toBeLessThanOrEqual(budget);
    }
    expect(packing.chunks.length).toBe(Math.ceil((40 * 5_050) / budget));
    for (const e of entries) {
      expect(packing.locations.get(e.digest)).toHaveLength(1);
      expect(reassemble(packing, e.digest).equals(Buffer.from(e.gz))).toBe(true);
    }
  });

  it('splits an entry larger than a chunk into parts that reassemble in order', () => {
    const big = entry(1, 5 * budget + 123);
    const packing = packEntries([entry(0, 10_000), big, entry(2, 3_000)], budget, 'scope');
    const parts = packing.locations.get(big.digest)!;
    expect(parts.length).toBe(6);
    expect(parts[0]?.chunk).toBe(packing.locations.get(entry(0, 1).digest)![0]!.chunk); // fills the tail
    expect(parts.map((p) => p.key)).toEqual(parts.map((_, i) => `${big.digest.slice(0, 32)}.${i}`));
    expect(reassemble(packing, big.digest).equals(Buffer.from(big.gz))).toBe(true);
    for (const chunk of packing.chunks) expect(chunk.bytes).toBeLessThanOrEqual(budget);
  });

  it('names chunks by content and scope: deterministic, DNS-safe, distinct per scope', () => {
    const entries = [entry(0, 1000), entry(1, 2000)];
    const a = packEntries(entries, budget, 'uid-1/web');
    const b = packEntries(entries, budget, 'uid-1/web');
    const c = packEntries(entries, budget, 'uid-1/config-web');
    expect(a.chunks.map((x) => x.name)).toEqual(b.chunks.map((x) => x.name));
    expect(a.chunks[0]?.name).not.toBe(c.chunks[0]?.name);
    expect(a.chunks[0]?.name).toMatch(/^longshore\.chunk\.[a-z2-7]{26}$/);
    // Any byte of content changes the name.
    const changed = new Map(a.chunks[0]!.data);
    const [key, value] = [...changed][0]!;
    changed.set(key, Buffer.concat([Buffer.from(value), Buffer.from([0])]));
    expect(chunkName('uid-1/web', changed)).not.toBe(a.chunks[0]?.name);
  });

  it('stores the same content twice in one revision once', () => {
    const e = entry(7, 500);
    const packing = packEntries([e, { ...e }], budget, 's');
    expect(packing.chunks).toHaveLength(1);
    expect(packing.chunks[0]?.data.size).toBe(1);
  });

  it('packs a 20 MiB incompressible release into Secrets under every limit', () => {
    // gzip of incompressible data is as large as the data: random bytes stand for it.
    const entries = Array.from({ length: 40 }, (_, i) => ({
      digest: `${i.toString(16).padStart(8, '0')}${'0'.repeat(56)}`,
      gz: randomBytes(i % 3 === 0 ? 1536 * 1024 : 256 * 1024),
    }));
    const packing = packEntries(entries, 900 * 1024, 's');
    for (const chunk of packing.chunks) {
      expect(chunk.bytes).toBeLessThanOrEqual(900 * 1024);
      // The request body carries the data as base64: far under 3 MiB.
      expect((chunk.bytes * 4) / 3).toBeLessThan(3 * 1024 * 1024 - 64 * 1024);
    }
  });
});

describe('compaction of fragmented reuse', () => {
  const stored = (digest: string, chunk: string, bytes: number, parts = 1) => ({
    type: 'object' as const,
    digest,
    size: bytes * 2,
    stored: bytes * parts,
    parts: Array.from({ length: parts }, (_, i) => ({
      chunk: parts > 1 ? `${chunk}-${i}` : chunk,
      key: `${digest}.${i}`,
      bytes,
    })),
  });

  it('rewrites nothing while a revision uses few chunks', () => {
    const reused = [stored('a', 'c1', 1000), stored('b', 'c2', 1000), stored('c', 'c3', 1000)];
    expect(entriesToCompact(reused, 500, 900 * 1024).size).toBe(0);
  });

  it('rewrites the entries of the least-used chunks down to the minimum plus four', () => {
    const reused = Array.from({ length: 12 }, (_, i) => stored(`d${i}`, `c${i}`, 1000 + i));
    const rewrite = entriesToCompact(reused, 500, 900 * 1024);
    // 12 chunks + 1 new, allowed 1 + 4: the eight smallest go.
    expect([...rewrite].sort()).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7']);
  });

  it('never rewrites chunks holding parts of a split entry', () => {
    const reused = [
      stored('big', 'huge', 900 * 1024, 8),
      ...Array.from({ length: 6 }, (_, i) => stored(`s${i}`, `c${i}`, 100)),
    ];
    const rewrite = entriesToCompact(reused, 0, 900 * 1024);
    expect(rewrite.has('big')).toBe(false);
  });
});
