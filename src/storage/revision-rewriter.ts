/**
 * Replacing the content of an existing revision — the one case where an index's manifest changes
 * after creation other than step 4's repair. Used to redact Secret values from history written
 * before the engine stored digests (src/releases/redact-history.ts). Order, crash-safe like
 * `create` (docs/storage-format.md, "Rewriting a revision"):
 *
 *   1. new chunks are created (content-addressed: a retry finds them);
 *   2. the index is updated in one request (resourceVersion precondition): new manifest, digest and
 *      size, chunks-owned cleared, and the chunks it no longer uses listed in
 *      `longshore.dev/replaced-chunks` — the revision is readable before and after, never half;
 *   3. the new chunks get the index as owner (step 4 of `create`), chunks-owned set;
 *   4. the replaced chunks that no index references any more are deleted (uid and resourceVersion
 *      preconditions, as the orphan sweep), then one merge patch removes the list and records the
 *      `redacted` marker.
 *
 * A crash after 2 leaves the list on the index and the marker unset, so the next rewrite of that
 * revision (same content: step 2 is skipped) completes 3 and 4. Status, description, holder and
 * timestamps are never touched: a deployed revision stays the deployed revision.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { NotFoundError, TransientError } from '../core/errors.ts';
import { ensureAppSecret } from './app-record-secrets.ts';
import { markOwned, ownChunks } from './chunk-ownership.ts';
import { writeChunk } from './chunk-writer.ts';
import { allIndexes, revisionsOf, type StorageContext, step } from './context.ts';
import { encodeContent } from './entries.ts';
import { chunksOf } from './manifest.ts';
import {
  ANNOTATION_CHUNKS_OWNED,
  ANNOTATION_DIGEST,
  ANNOTATION_REPLACED_CHUNKS,
  ANNOTATION_SECRET_VALUES,
  ANNOTATION_SIZE,
  INDEX_PREFIX,
  indexName,
  MANIFEST_KEY,
  SECRET_VALUES_REDACTED,
} from './names.ts';
import { planEntries, scopeOf } from './revision-writer.ts';
import type { RevisionInfo, RewriteRevisionInput } from './types.ts';

export async function rewriteRevision(
  ctx: StorageContext,
  input: RewriteRevisionInput,
): Promise<RevisionInfo> {
  const name = indexName(input.release, input.revision);
  const index = revisionsOf(ctx, input.release).find((r) => r.info.revision === input.revision);
  if (!index) throw new NotFoundError(`release ${input.release} has no revision ${input.revision}`);
  const encoded = encodeContent(input.content);
  let current = index.secret;

  if (current.metadata?.annotations?.[ANNOTATION_DIGEST] !== encoded.digest) {
    const appRecord = await ensureAppSecret(ctx, index.info.app, {});
    const { stored, packing, manifest, storedBytes } = planEntries(
      ctx,
      input,
      encoded,
      scopeOf(appRecord, input.release),
    );
    for (const chunk of packing.chunks)
      await writeChunk(ctx, chunk, index.info.app, input.release, appRecord);
    await step(ctx, 'chunks', name);
    const kept = chunksOf(stored);
    const replaced = new Set([...listed(current), ...chunksOf(index.entries ?? [])]);
    for (const chunk of kept) replaced.delete(chunk);
    current = await updateIndex(ctx, name, (fresh) => {
      const annotations = { ...fresh.metadata?.annotations };
      delete annotations[ANNOTATION_CHUNKS_OWNED];
      delete annotations[ANNOTATION_SECRET_VALUES];
      annotations[ANNOTATION_DIGEST] = encoded.digest;
      annotations[ANNOTATION_SIZE] = `${encoded.renderedBytes}/${storedBytes}`;
      if (replaced.size > 0) annotations[ANNOTATION_REPLACED_CHUNKS] = [...replaced].sort().join(',');
      return {
        ...fresh,
        metadata: { ...fresh.metadata, annotations },
        data: { ...fresh.data, [MANIFEST_KEY]: Buffer.from(manifest).toString('base64') },
      };
    });
    await step(ctx, 'index', name);
  }

  const view = ctx.view.view(current);
  if (current.metadata?.annotations?.[ANNOTATION_CHUNKS_OWNED] !== 'true' && view?.entries) {
    const found = await ownChunks(ctx, current, chunksOf(view.entries));
    if ([...found.values()].every((data) => data !== undefined)) current = await markOwned(ctx, current);
  }
  const doomed = listed(current);
  if (doomed.length > 0) await deleteUnreferenced(ctx, input.release, doomed);
  const finished = await ctx.api.patchMerge(name, {
    metadata: {
      annotations: {
        [ANNOTATION_REPLACED_CHUNKS]: null,
        ...(input.redacted ? { [ANNOTATION_SECRET_VALUES]: SECRET_VALUES_REDACTED } : {}),
      },
    },
  });
  if (!finished) throw new NotFoundError(`release ${input.release} has no revision ${input.revision}`);
  ctx.indexes.wrote(finished);
  return ctx.view.view(finished)!.info;
}

function listed(index: V1Secret): string[] {
  const value = index.metadata?.annotations?.[ANNOTATION_REPLACED_CHUNKS] ?? '';
  return value.split(',').filter(Boolean);
}

/** One update of the index from a fresh read (the cache may lag); a conflict reads again. */
async function updateIndex(
  ctx: StorageContext,
  name: string,
  change: (fresh: V1Secret) => V1Secret,
): Promise<V1Secret> {
  for (let attempt = 1; ; attempt++) {
    const fresh = await ctx.api.get(name);
    if (!fresh) throw new NotFoundError(`index ${name} disappeared while it was rewritten`);
    try {
      const updated = await ctx.api.replace(change(fresh));
      ctx.indexes.wrote(updated);
      return updated;
    } catch (err) {
      if (!(err instanceof TransientError) || attempt >= 5) throw err;
    }
  }
}

/**
 * Deletes those of `names` that no cached index references, with the orphan sweep's care: a chunk
 * listing an index this cache does not know, or changed since it was read (a writer adopted it),
 * is left for a later sweep. Nothing is deleted while an index of the same release is unreadable.
 */
async function deleteUnreferenced(ctx: StorageContext, release: string, names: string[]): Promise<void> {
  const referenced = new Set<string>();
  const known = new Set<string>();
  for (const index of allIndexes(ctx)) {
    known.add(index.secret.metadata?.uid ?? '');
    if (!index.entries && index.info.release === release) return;
    for (const chunk of chunksOf(index.entries ?? [])) referenced.add(chunk);
  }
  for (const name of names) {
    if (referenced.has(name)) continue;
    const chunk = await ctx.api.get(name);
    if (!chunk) continue;
    const meta = chunk.metadata ?? {};
    if ((meta.ownerReferences ?? []).some((o) => o.name.startsWith(INDEX_PREFIX) && !known.has(o.uid)))
      continue;
    await ctx.api.delete(name, {
      uid: meta.uid ?? '',
      ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
    });
    ctx.reader.cache.delete(name);
  }
}
