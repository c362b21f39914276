/**
 * Deleting history: revisions over the cap (never the last deployed one), whole releases, and
 * orphan chunks. Always indexes first, then the chunks nothing references any more, so a crash
 * at any point leaves every surviving revision readable and, at worst, chunks for sweepOrphans.
 */
import { markOwned, ownChunks } from './chunk-ownership.ts';
import { allIndexes, revisionsOf, type StorageContext, step } from './context.ts';
import type { IndexEntry } from './index-view.ts';
import { chunksOf } from './manifest.ts';
import { ANNOTATION_CHUNKS_OWNED, INDEX_PREFIX, LABEL_APP, LABEL_RELEASE, selectorFor } from './names.ts';
import type { RevisionInfo } from './types.ts';

export interface PruneResult {
  revisions: number;
  chunks: number;
}

/**
 * Revisions to delete so that `keep` remain, sparing the newest deployed one (as Helm's history
 * max). Shared by both drivers (memory-history.ts), so they prune alike.
 */
export function revisionsOverCap<T extends { info: RevisionInfo }>(revisions: T[], keep: number): T[] {
  if (keep <= 0 || revisions.length <= keep) return [];
  const sorted = [...revisions].sort((a, b) => a.info.revision - b.info.revision);
  const lastDeployed = sorted.filter((r) => r.info.status === 'deployed').at(-1);
  return sorted.slice(0, sorted.length - keep).filter((r) => r !== lastDeployed);
}

export async function prune(ctx: StorageContext, release: string, keep: number): Promise<PruneResult> {
  const revisions = revisionsOf(ctx, release);
  const doomed = revisionsOverCap(revisions, keep);
  if (doomed.length === 0) return { revisions: 0, chunks: 0 };
  const survivors = revisions.filter((r) => !doomed.includes(r));
  return removeRevisions(ctx, doomed, survivors);
}

export async function deleteRelease(ctx: StorageContext, release: string): Promise<PruneResult> {
  return removeRevisions(ctx, revisionsOf(ctx, release), []);
}

async function removeRevisions(
  ctx: StorageContext,
  doomed: IndexEntry[],
  survivors: IndexEntry[],
): Promise<PruneResult> {
  const used = new Set<string>();
  for (const survivor of survivors) for (const chunk of chunksOf(survivor.entries ?? [])) used.add(chunk);
  const doomedChunks = new Set<string>();
  for (const revision of doomed)
    for (const chunk of chunksOf(revision.entries ?? [])) doomedChunks.add(chunk);

  // Before an index goes, every survivor's chunks must list it as owner: a survivor whose write
  // was interrupted between creating its index and step 4 may share chunks that list only the
  // doomed index (and the app record). Survivors marked chunks-owned need nothing.
  for (const survivor of survivors) {
    if (!survivor.entries || survivor.secret.metadata?.annotations?.[ANNOTATION_CHUNKS_OWNED] === 'true')
      continue;
    const found = await ownChunks(ctx, survivor.secret, chunksOf(survivor.entries));
    if ([...found.values()].every((data) => data !== undefined)) await markOwned(ctx, survivor.secret);
  }

  let revisions = 0;
  for (const revision of [...doomed].sort((a, b) => a.info.revision - b.info.revision)) {
    const name = revision.secret.metadata?.name ?? '';
    const outcome = await ctx.api.deleteCached(name, ctx.indexes, {
      uid: revision.secret.metadata?.uid ?? '',
    });
    if (outcome === 'deleted') revisions++;
    await step(ctx, 'prune-index', name);
  }

  // A survivor whose manifest cannot be read may use any chunk: leave them to sweepOrphans, which
  // spares that release until its manifest is readable again or the revision is gone.
  if (survivors.some((s) => !s.entries)) return { revisions, chunks: 0 };
  let chunks = 0;
  for (const chunk of [...doomedChunks].sort()) {
    if (used.has(chunk)) continue;
    const outcome = await ctx.api.delete(chunk);
    ctx.reader.cache.delete(chunk);
    if (outcome === 'deleted') chunks++;
    await step(ctx, 'prune-chunk', chunk);
  }
  return { revisions, chunks };
}

/**
 * Deletes chunks that no index references: left by a crash between writing chunks and creating
 * the index, or between deleting an index and its chunks. A chunk is kept when
 * - a cached index references it;
 * - it is younger than `minAgeMs` (its index may be about to be created by another worker);
 * - it lists an index owner this cache does not know (an index not seen yet, or a deleted one
 *   the garbage collector has not unlinked yet: a later sweep decides);
 * - its release has a revision whose manifest cannot be read (its references are unknown).
 * The delete carries the chunk's uid and resourceVersion as preconditions: a chunk that a writer
 * adopted (added an owner to) since it was listed is not deleted.
 */
export async function sweepOrphans(
  ctx: StorageContext,
  minAgeMs: number,
  options: { app?: string; dryRun?: boolean; onOrphan?: (chunk: string) => void } = {},
): Promise<number> {
  const referenced = new Set<string>();
  const knownIndexes = new Set<string>();
  const unsure = new Set<string>();
  for (const index of allIndexes(ctx)) {
    knownIndexes.add(index.secret.metadata?.uid ?? '');
    if (!index.entries) unsure.add(index.info.release);
    for (const chunk of chunksOf(index.entries ?? [])) referenced.add(chunk);
  }
  const now = ctx.now().getTime();
  let deleted = 0;
  // A list started again (its continue token expired) shows a chunk already looked at once more.
  const seen = new Set<string>();
  // Small pages: chunks carry up to 900 KiB each and only their metadata matters here.
  await ctx.api.forEachPage(selectorFor('chunk'), 16, async (items) => {
    for (const chunk of items) {
      const meta = chunk.metadata ?? {};
      const name = meta.name ?? '';
      if (seen.has(name)) continue;
      seen.add(name);
      if (referenced.has(name) || unsure.has(meta.labels?.[LABEL_RELEASE] ?? '')) continue;
      if (options.app !== undefined && meta.labels?.[LABEL_APP] !== options.app) continue;
      const created = meta.creationTimestamp ? new Date(meta.creationTimestamp).getTime() : now;
      if (now - created < minAgeMs) continue;
      const unknownOwner = (meta.ownerReferences ?? []).some(
        (o) => o.name.startsWith(INDEX_PREFIX) && !knownIndexes.has(o.uid),
      );
      if (unknownOwner) continue;
      if (options.dryRun) {
        options.onOrphan?.(name);
        deleted++;
        continue;
      }
      const outcome = await ctx.api.delete(name, {
        uid: meta.uid ?? '',
        ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
      });
      ctx.reader.cache.delete(name);
      if (outcome === 'deleted') {
        options.onOrphan?.(name);
        deleted++;
      }
    }
  });
  return deleted;
}
