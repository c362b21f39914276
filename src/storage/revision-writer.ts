/**
 * Storing a new revision, crash-safe. The order, and why each step is safe to die after:
 *   1. the app record exists (the owner of everything below, so nothing is ever ownerless);
 *   2. new chunks are created — content-addressed and immutable, so AlreadyExists means the bytes
 *      are already there; a crash leaves unreferenced chunks, which sweepOrphans removes;
 *   3. the index is created — a create, so AlreadyExists is the concurrency fence: another writer
 *      (RevisionExistsError), or our own earlier attempt (same holder and digest: adopted);
 *   4. each chunk the index uses gets the index as an owner — a crash leaves chunks still owned by
 *      the app record, and the next attempt (or prune, before it deletes) completes this.
 * Nothing is deleted here: the previous revisions stay intact whatever happens.
 *
 * Deduplication: entries whose digest is already stored in a chunk referenced by the release's
 * cached revisions are pointed at, not written; only the rest are compressed and packed.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { InvalidInputError } from '../core/errors.ts';
import type { ChunkData } from './chunk-cache.ts';
import { markOwned, ownChunks } from './chunk-ownership.ts';
import { EntryProblem } from './chunk-reader.ts';
import { writeChunk } from './chunk-writer.ts';
import { gzip } from './compression.ts';
import { revisionsOf, type StorageContext, step } from './context.ts';
import { type EncodedContent, encodeContent } from './entries.ts';
import { formatBytes } from './limits.ts';
import { chunksOf, encodeManifest, type StoredEntry } from './manifest.ts';
import {
  ANNOTATION_DIGEST,
  ANNOTATION_HOLDER,
  indexName,
  isReleaseStatus,
  MANIFEST_KEY,
  nameProblem,
} from './names.ts';
import { type EntryToPack, packEntries } from './packing.ts';
import { buildIndex } from './secret-builders.ts';
import {
  type CreateRevisionInput,
  ReleaseTooLargeError,
  RevisionExistsError,
  type RevisionInfo,
} from './types.ts';

/** The checks of `create`'s input (shared with the in-memory driver). */
export function validateRevisionInput(input: CreateRevisionInput): void {
  const issues: { path: string; message: string }[] = [];
  const app = nameProblem('app', input.app);
  if (app) issues.push({ path: 'app', message: app });
  const release = nameProblem('release', input.release);
  if (release) issues.push({ path: 'release', message: release });
  if (!Number.isSafeInteger(input.revision) || input.revision < 1) {
    issues.push({ path: 'revision', message: `must be a whole number from 1 (got ${input.revision})` });
  }
  if (!isReleaseStatus(input.status))
    issues.push({ path: 'status', message: `unknown status ${input.status}` });
  if (issues.length > 0) throw new InvalidInputError(issues, 'release revision');
}

/** The packing scope: chunks are only ever shared between revisions of one release of one app record. */
export function scopeOf(appRecord: V1Secret, release: string): string {
  return `${appRecord.metadata?.uid ?? ''}/${release}`;
}

/**
 * A revision may reference at most this many chunks beyond the fewest its bytes need. Without a
 * bound, a history of small changes to different objects leaves each revision pointing into many
 * small chunks — and step 4 patches every chunk a revision uses.
 */
const CHUNK_SLACK = 4;

/**
 * Which reused entries to write again, so the revision references at most the minimal number of
 * chunks plus CHUNK_SLACK: the entries of the chunks this revision uses least, smallest first.
 * Chunks holding part of a split entry are full ones and stay.
 */
export function entriesToCompact(reused: StoredEntry[], newBytes: number, chunkBytes: number): Set<string> {
  const usage = new Map<string, { bytes: number; digests: Set<string>; pinned: boolean }>();
  let total = newBytes;
  for (const entry of reused) {
    total += entry.stored;
    for (const part of entry.parts) {
      const u = usage.get(part.chunk) ?? { bytes: 0, digests: new Set<string>(), pinned: false };
      u.bytes += part.bytes;
      u.digests.add(entry.digest);
      if (entry.parts.length > 1) u.pinned = true;
      usage.set(part.chunk, u);
    }
  }
  const allowed = Math.ceil(total / chunkBytes) + CHUNK_SLACK;
  const count = () => usage.size + Math.ceil(newBytes / chunkBytes);
  const rewrite = new Set<string>();
  const candidates = [...usage]
    .filter(([, u]) => !u.pinned)
    .sort((a, b) => a[1].bytes - b[1].bytes || (a[0] < b[0] ? -1 : 1));
  for (const [chunk, u] of candidates) {
    if (count() <= allowed) break;
    usage.delete(chunk);
    newBytes += u.bytes;
    for (const digest of u.digests) rewrite.add(digest);
  }
  return rewrite;
}

/**
 * Chunks that may hold Secret values: every chunk used by a revision that holds a Secret and is not
 * marked redacted (history written before redaction). Every chunk it uses, not only its Secret's:
 * a chunk also holds the entries of the revision that first wrote it, which the manifest of a
 * since-rewritten revision no longer names. A redacted revision never points into one, or its chart
 * entry would keep such a chunk, and the values in it, alive after the migration.
 */
function chunksHoldingValues(ctx: StorageContext, release: string): Set<string> {
  const chunks = new Set<string>();
  for (const revision of revisionsOf(ctx, release)) {
    const entries = revision.entries ?? [];
    if (revision.info.redacted || !entries.some((e) => e.ref?.kind === 'Secret')) continue;
    for (const entry of entries) for (const p of entry.parts) chunks.add(p.chunk);
  }
  return chunks;
}

/** Plans where every entry lives: reused locations, or new chunks (not yet written). */
export function planEntries(
  ctx: StorageContext,
  input: Pick<CreateRevisionInput, 'release' | 'revision' | 'redacted'>,
  encoded: EncodedContent,
  scope: string,
) {
  const avoid = input.redacted ? chunksHoldingValues(ctx, input.release) : new Set<string>();
  const reusable = new Map<string, StoredEntry>();
  for (const revision of revisionsOf(ctx, input.release)) {
    for (const entry of revision.entries ?? []) {
      if (entry.parts.some((p) => ctx.reader.bad.has(p.chunk) || avoid.has(p.chunk))) continue;
      reusable.set(entry.digest, entry);
    }
  }
  // Distinct contents of this revision: reused where stored already, compressed otherwise.
  const gzOf = new Map<string, Uint8Array>();
  const reused = new Map<string, StoredEntry>();
  let newBytes = 0;
  for (const e of encoded.entries) {
    if (gzOf.has(e.digest) || reused.has(e.digest)) continue;
    const known = reusable.get(e.digest);
    if (known) reused.set(e.digest, known);
    else {
      const gz = gzip(e.bytes);
      gzOf.set(e.digest, gz);
      newBytes += gz.byteLength;
    }
  }
  const bytesOf = new Map(encoded.entries.map((e) => [e.digest, e.bytes]));
  for (const digest of entriesToCompact([...reused.values()], newBytes, ctx.limits.chunkBytes)) {
    reused.delete(digest);
    gzOf.set(digest, gzip(bytesOf.get(digest)!));
  }
  let storedBytes = 0;
  for (const entry of reused.values()) storedBytes += entry.stored;
  for (const gz of gzOf.values()) storedBytes += gz.byteLength;
  const limit = ctx.limits.maxReleaseBytes;
  if (storedBytes > limit) {
    throw new ReleaseTooLargeError(
      `release ${input.release} revision ${input.revision} is ${formatBytes(storedBytes)} compressed ` +
        `(${formatBytes(encoded.renderedBytes)} rendered), over the ${formatBytes(limit)} limit of release storage; ` +
        'nothing was written',
      { renderedBytes: encoded.renderedBytes, storedBytes, limitBytes: limit },
    );
  }
  // Packed in content order, so the same content always packs the same way.
  const toPack: EntryToPack[] = [];
  const queued = new Set<string>();
  for (const e of encoded.entries) {
    const gz = gzOf.get(e.digest);
    if (!gz || queued.has(e.digest)) continue;
    queued.add(e.digest);
    toPack.push({ digest: e.digest, gz });
  }
  const packing = packEntries(toPack, ctx.limits.chunkBytes, scope);
  const stored: StoredEntry[] = encoded.entries.map((e) => {
    const base = {
      type: e.type,
      ...(e.ref ? { ref: e.ref } : {}),
      digest: e.digest,
      size: e.bytes.byteLength,
    };
    const known = reused.get(e.digest);
    if (known) return { ...base, stored: known.stored, parts: known.parts };
    return { ...base, stored: gzOf.get(e.digest)!.byteLength, parts: packing.locations.get(e.digest)! };
  });
  const manifest = encodeManifest(stored);
  if (manifest.byteLength + MANIFEST_KEY.length > ctx.limits.chunkBytes) {
    throw new ReleaseTooLargeError(
      `release ${input.release} revision ${input.revision} has ${encoded.entries.length - 1} objects: its manifest ` +
        `(${formatBytes(manifest.byteLength)}) does not fit one Secret (${formatBytes(ctx.limits.chunkBytes)}); nothing was written`,
      { renderedBytes: encoded.renderedBytes, storedBytes, limitBytes: limit },
    );
  }
  return { stored, packing, manifest, storedBytes };
}

export async function createRevision(
  ctx: StorageContext,
  input: CreateRevisionInput,
  appRecord: V1Secret,
): Promise<RevisionInfo> {
  validateRevisionInput(input);
  await step(ctx, 'app', appRecord.metadata?.name ?? '');
  const name = indexName(input.release, input.revision);
  const encoded = encodeContent(input.content);
  const cached = ctx.indexes.get(ctx.namespace, name);
  // Known before writing anything: refuse (or adopt) without leaving chunks behind.
  if (cached) return adoptOrRefuse(ctx, cached, input, encoded, appRecord);

  const scope = scopeOf(appRecord, input.release);
  const { stored, packing, manifest, storedBytes } = planEntries(ctx, input, encoded, scope);
  for (const chunk of packing.chunks) await writeChunk(ctx, chunk, input.app, input.release, appRecord);
  await step(ctx, 'chunks', name);

  const index = buildIndex(
    {
      app: input.app,
      release: input.release,
      revision: input.revision,
      status: input.status,
      chart: input.content.chart,
      digest: encoded.digest,
      description: input.description,
      ...(input.holder !== undefined ? { holder: input.holder } : {}),
      ...(input.redacted ? { redacted: true } : {}),
      renderedBytes: encoded.renderedBytes,
      storedBytes,
      manifest,
    },
    appRecord,
    ctx.now(),
  );
  const outcome = await ctx.api.create(index);
  if (!('created' in outcome)) {
    const live = await ctx.api.get(name);
    if (!live)
      throw new RevisionExistsError(
        `release ${input.release} revision ${input.revision} was written and deleted by another writer`,
      );
    return adoptOrRefuse(ctx, live, input, encoded, appRecord);
  }
  ctx.indexes.wrote(outcome.created);
  await step(ctx, 'index', name);
  const written = new Set(packing.chunks.map((c) => c.name));
  const done = await completeOwnership(ctx, outcome.created, stored, encoded, input, appRecord, written);
  return ctx.view.view(done)!.info;
}

/**
 * An index of that name exists. Ours from an interrupted attempt (same holder, same digest): finish
 * step 4 and return it as it is now (its status may have moved on). Anyone else's:
 * RevisionExistsError.
 */
async function adoptOrRefuse(
  ctx: StorageContext,
  existing: V1Secret,
  input: CreateRevisionInput,
  encoded: EncodedContent,
  appRecord: V1Secret,
): Promise<RevisionInfo> {
  const annotations = existing.metadata?.annotations ?? {};
  // Same holder (or both without one) and same content: writing it again would write the same
  // thing, so it is ours — typically our own create whose answer was lost, or a crashed attempt.
  const ours =
    annotations[ANNOTATION_HOLDER] === input.holder && annotations[ANNOTATION_DIGEST] === encoded.digest;
  if (!ours) {
    const holder = annotations[ANNOTATION_HOLDER];
    throw new RevisionExistsError(
      `release ${input.release} revision ${input.revision} already exists` +
        (holder ? ` (written by ${holder})` : '') +
        ': another writer got there first',
    );
  }
  ctx.indexes.wrote(existing);
  const view = ctx.view.view(existing);
  if (!view?.entries) return view!.info;
  const done = await completeOwnership(ctx, existing, view.entries, encoded, input, appRecord);
  return ctx.view.view(done)!.info;
}

/**
 * Step 4, and the check and repair of what it finds. The patches' answers carry the chunks' data,
 * so every reused entry is verified against its digest there: a chunk that has disappeared
 * (deleted by hand, or by a sweep that raced this write) or whose bytes are not what the manifest
 * says (tampered with) would make the new revision unreadable. Its entries are written again into
 * new chunks — this writer has their bytes — and the index's manifest is replaced to point at them.
 * When create returns, every entry of the revision has been seen intact.
 */
async function completeOwnership(
  ctx: StorageContext,
  index: V1Secret,
  stored: StoredEntry[],
  encoded: EncodedContent,
  input: CreateRevisionInput,
  appRecord: V1Secret,
  written: ReadonlySet<string> = new Set(),
): Promise<V1Secret> {
  const scope = scopeOf(appRecord, input.release);
  const bytesOf = new Map(encoded.entries.map((e) => [e.digest, e.bytes]));
  let current = index;
  let entries = stored;
  let lost = damaged(ctx, entries, await ownChunks(ctx, current, chunksOf(entries)), written);
  for (let round = 0; lost.size > 0 && round < 2; round++) {
    const toPack: EntryToPack[] = [];
    const queued = new Set<string>();
    for (const entry of entries) {
      if (queued.has(entry.digest) || !entry.parts.some((p) => lost.has(p.chunk))) continue;
      const bytes = bytesOf.get(entry.digest);
      if (!bytes) continue;
      queued.add(entry.digest);
      toPack.push({ digest: entry.digest, gz: gzip(bytes) });
    }
    const packing = packEntries(toPack, ctx.limits.chunkBytes, scope);
    for (const chunk of packing.chunks) await writeChunk(ctx, chunk, input.app, input.release, appRecord);
    entries = entries.map((e) => {
      const moved = packing.locations.get(e.digest);
      return moved ? { ...e, parts: moved, stored: moved.reduce((n, p) => n + p.bytes, 0) } : e;
    });
    // A fresh read: the cached object may come from a watch event (plain JSON, not client-node's
    // typed object), and the replace must carry the current resourceVersion.
    const fresh = await ctx.api.get(current.metadata?.name ?? '');
    if (!fresh) break;
    const replaced = await ctx.api.replace({
      ...fresh,
      data: { ...fresh.data, [MANIFEST_KEY]: Buffer.from(encodeManifest(entries)).toString('base64') },
    });
    ctx.indexes.wrote(replaced);
    current = replaced;
    const rewritten = new Set(packing.chunks.map((c) => c.name));
    lost = damaged(ctx, entries, await ownChunks(ctx, current, rewritten), rewritten);
  }
  return lost.size === 0 ? markOwned(ctx, current) : current;
}

/**
 * Chunks whose entries are missing or do not match their digests, among those just patched.
 * Chunks this writer has just written (and compared) are trusted without decoding them again.
 */
function damaged(
  ctx: StorageContext,
  entries: StoredEntry[],
  found: ReadonlyMap<string, ChunkData | undefined>,
  written: ReadonlySet<string>,
): Set<string> {
  const lost = new Set<string>();
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.digest)) continue;
    seen.add(entry.digest);
    const chunks = entry.parts.map((p) => p.chunk).filter((c) => found.has(c));
    if (chunks.length === 0 || chunks.every((c) => written.has(c))) continue;
    try {
      ctx.reader.decodeEntry(entry, found);
    } catch (err) {
      if (!(err instanceof EntryProblem)) throw err;
      for (const chunk of err.chunks) lost.add(chunk);
    }
  }
  return lost;
}
