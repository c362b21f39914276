/**
 * Packing new entries' gzip bytes into chunk Secrets. Pure and deterministic: the same entries,
 * budget and scope always give the same chunks with the same names, which is what lets a write
 * retried after a crash find its earlier chunks (AlreadyExists on a content-addressed name).
 *
 * - Each chunk's data (keys plus values) stays within `budget` bytes.
 * - An entry that fits a chunk is never split: it goes into the current chunk, or starts a new one.
 * - An entry larger than a chunk is cut into parts: the first fills what is left of the current
 *   chunk (when that is worth it), the rest fill new chunks.
 * - Chunk names: `longshore.chunk.` + the first 26 lowercase base32 characters (130 bits) of the
 *   sha256 of a domain tag, the scope (app record uid and release) and the chunk's sorted keys and
 *   values. The scope keeps releases from sharing chunks: a chunk is only ever referenced by the
 *   indexes of one release of one app record, so pruning one release can never delete what
 *   another release (or a recreated app) uses.
 */
import { createHash } from 'node:crypto';
import { base32 } from './digest.ts';
import type { PartLocation } from './manifest.ts';
import { CHUNK_PREFIX } from './names.ts';

export interface EntryToPack {
  digest: string;
  gz: Uint8Array;
}

export interface PackedChunk {
  name: string;
  data: Map<string, Uint8Array>;
  /** Keys plus values, the size the budget bounds. */
  bytes: number;
}

export interface Packing {
  chunks: PackedChunk[];
  /** Where each packed entry's parts went, by entry digest. */
  locations: Map<string, PartLocation[]>;
}

/** A split entry leaves less than this in a chunk's tail unused rather than cut a sliver off. */
const MIN_PART = 4096;

export function partKey(digest: string, part: number): string {
  return `${digest.slice(0, 32)}.${part}`;
}

export function chunkName(scope: string, data: ReadonlyMap<string, Uint8Array>): string {
  const hash = createHash('sha256');
  hash.update(`longshore.chunk.v1\0${scope}\0`);
  for (const key of [...data.keys()].sort()) {
    const value = data.get(key)!;
    const header = Buffer.alloc(8);
    header.writeUInt32BE(Buffer.byteLength(key), 0);
    header.writeUInt32BE(value.byteLength, 4);
    hash.update(header).update(key).update(value);
  }
  return `${CHUNK_PREFIX}${base32(hash.digest()).slice(0, 26)}`;
}

export function packEntries(entries: EntryToPack[], budget: number, scope: string): Packing {
  const chunks: PackedChunk[] = [];
  const locations = new Map<string, PartLocation[]>();
  let data = new Map<string, Uint8Array>();
  let used = 0;
  // Locations are recorded with the chunk's index and named when it is closed.
  const pending: { chunk: number; key: string; bytes: number; digest: string }[] = [];
  const names: string[] = [];
  const close = () => {
    if (data.size === 0) return;
    names.push(chunkName(scope, data));
    chunks.push({ name: names[names.length - 1]!, data, bytes: used });
    data = new Map();
    used = 0;
  };
  const put = (digest: string, part: number, bytes: Uint8Array) => {
    const key = partKey(digest, part);
    data.set(key, bytes);
    used += Buffer.byteLength(key) + bytes.byteLength;
    pending.push({ chunk: chunks.length, key, bytes: bytes.byteLength, digest });
  };
  for (const entry of entries) {
    if (locations.has(entry.digest)) continue; // the same content twice in one revision is stored once
    locations.set(entry.digest, []);
    const keyBytes = Buffer.byteLength(partKey(entry.digest, 0)) + 4; // room for a multi-digit part number
    const whole = keyBytes + entry.gz.byteLength;
    if (whole <= budget) {
      if (used + whole > budget) close();
      put(entry.digest, 0, entry.gz);
      continue;
    }
    let offset = 0;
    let part = 0;
    while (offset < entry.gz.byteLength) {
      let space = budget - used - keyBytes;
      const remaining = entry.gz.byteLength - offset;
      if (space < Math.min(MIN_PART, remaining)) {
        close();
        space = budget - keyBytes;
      }
      const take = Math.min(space, remaining);
      put(entry.digest, part++, entry.gz.subarray(offset, offset + take));
      offset += take;
    }
  }
  close();
  for (const p of pending) {
    locations.get(p.digest)!.push({ chunk: names[p.chunk]!, key: p.key, bytes: p.bytes });
  }
  return { chunks, locations };
}
