/**
 * The manifest in each index Secret (`data.manifest`: gzip of JSON, as raw bytes): the format version, the
 * chunk table, and one entry per object (plus the chart/values entry) with its digest, sizes and
 * where its compressed bytes live — one or more parts, each a data key of a chunk Secret, whose
 * concatenation is the entry's gzip stream. History reads object identities and digests from here
 * without touching a chunk.
 *
 * Compressed because it is the one thing every revision writes in full: about 240 bytes of JSON
 * per object (the digests dominate), 60 once gzipped. Readers also accept plain JSON (a `{` where
 * the gzip magic would be), so a manifest can be written by hand when repairing storage.
 */
import { gunzipSync } from 'fflate';
import { z } from 'zod';
import { gzip } from './compression.ts';
import type { EntryType } from './entries.ts';
import type { ObjectRef } from './types.ts';

/** Bumped on any change an older reader would misread; readers refuse versions they do not know. */
export const MANIFEST_VERSION = 1;

/** One piece of an entry's gzip bytes: data key `key` of chunk Secret `chunk`, `bytes` long. */
export interface PartLocation {
  chunk: string;
  key: string;
  bytes: number;
}

/** An entry as stored: identity, digest of its canonical JSON, sizes, and where its bytes are. */
export interface StoredEntry {
  type: EntryType;
  ref?: ObjectRef;
  digest: string;
  /** Canonical JSON bytes. */
  size: number;
  /** gzip bytes (the sum of its parts). */
  stored: number;
  parts: PartLocation[];
}

const refSchema = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  namespace: z.string().min(1).optional(),
  name: z.string().min(1),
});

const wireSchema = z.object({
  v: z.literal(MANIFEST_VERSION),
  chunks: z.array(z.string().min(1)),
  entries: z.array(
    z.object({
      t: z.enum(['chart', 'object']),
      ref: refSchema.optional(),
      d: z.string().regex(/^[0-9a-f]{64}$/),
      n: z.number().int().nonnegative(),
      z: z.number().int().positive(),
      // [chunk index, data key, bytes]
      p: z
        .array(z.tuple([z.number().int().nonnegative(), z.string().min(1), z.number().int().positive()]))
        .min(1),
    }),
  ),
});

type Wire = z.infer<typeof wireSchema>;

/** The manifest could not be decoded (corrupt, or written by a newer format). */
export class ManifestError extends Error {}

/** Serializes entries with a chunk table, so a chunk name shared by many entries is written once. */
export function encodeManifest(entries: StoredEntry[]): Uint8Array {
  const chunks: string[] = [];
  const indexOf = new Map<string, number>();
  const chunkIndex = (name: string) => {
    let i = indexOf.get(name);
    if (i === undefined) {
      i = chunks.length;
      chunks.push(name);
      indexOf.set(name, i);
    }
    return i;
  };
  const wire: Wire = {
    v: MANIFEST_VERSION,
    chunks,
    entries: entries.map((e) => ({
      t: e.type,
      ...(e.ref ? { ref: e.ref } : {}),
      d: e.digest,
      n: e.size,
      z: e.stored,
      p: e.parts.map((p) => [chunkIndex(p.chunk), p.key, p.bytes] as [number, string, number]),
    })),
  };
  return gzip(Buffer.from(JSON.stringify(wire)));
}

/** Inflated manifests larger than this are refused (about 300,000 objects: not a real release). */
const MAX_MANIFEST_JSON = 64 * 1024 * 1024;

function manifestText(bytes: Uint8Array): string {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    if (bytes.byteLength < 18) throw new ManifestError('manifest gzip stream is truncated');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.getUint32(bytes.byteLength - 4, true) > MAX_MANIFEST_JSON)
      throw new ManifestError('manifest is implausibly large');
    try {
      return Buffer.from(gunzipSync(bytes)).toString('utf8');
    } catch (err) {
      throw new ManifestError(`manifest does not inflate: ${(err as Error).message}`);
    }
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

export function decodeManifest(bytes: Uint8Array): StoredEntry[] {
  const text = manifestText(bytes);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ManifestError(`manifest is not JSON: ${(err as Error).message}`);
  }
  const version = (raw as { v?: unknown } | null)?.v;
  if (version !== MANIFEST_VERSION) {
    throw new ManifestError(
      `unsupported manifest version ${JSON.stringify(version)} (this reader knows ${MANIFEST_VERSION})`,
    );
  }
  const parsed = wireSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ManifestError(`invalid manifest at ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`);
  }
  const { chunks, entries } = parsed.data;
  if (entries.filter((e) => e.t === 'chart').length !== 1)
    throw new ManifestError('manifest must have exactly one chart entry');
  return entries.map((e) => {
    let sum = 0;
    const parts = e.p.map(([i, key, n]) => {
      const chunk = chunks[i];
      if (chunk === undefined)
        throw new ManifestError(`manifest entry ${e.d} names chunk #${i}, which is not in its table`);
      sum += n;
      return { chunk, key, bytes: n };
    });
    if (sum !== e.z)
      throw new ManifestError(`manifest entry ${e.d}: parts total ${sum} bytes, entry says ${e.z}`);
    if (e.t === 'object' && !e.ref)
      throw new ManifestError(`manifest entry ${e.d}: an object entry without ref`);
    return { type: e.t, ...(e.ref ? { ref: e.ref } : {}), digest: e.d, size: e.n, stored: e.z, parts };
  });
}

/** Names of the chunks a manifest's entries use. */
export function chunksOf(entries: StoredEntry[]): Set<string> {
  const names = new Set<string>();
  for (const e of entries) for (const p of e.parts) names.add(p.chunk);
  return names;
}
