/**
 * What the parts of the driver share: the Secret API of the system namespace, the two informer
 * caches, the index view, the chunk reader, the resolved options, and the step hook that tests
 * use to kill a writer between two writes.
 */
import type { V1Secret } from '@kubernetes/client-node';
import type { InformerCache } from '../kube/informer-cache.ts';
import type { ChunkReader } from './chunk-reader.ts';
import type { IndexEntry, IndexView } from './index-view.ts';
import { deployedOf, lastOf } from './release-history.ts';
import type { SecretApi } from './secret-api.ts';

/**
 * The points between writes, in order: the app record exists; one chunk written; all new chunks
 * written; the index created; one chunk's ownerReferences completed; one index deleted by prune;
 * one chunk deleted by prune.
 */
export type WriteStep = 'app' | 'chunk' | 'chunks' | 'index' | 'owner' | 'prune-index' | 'prune-chunk';

export interface StoreHooks {
  /** Called after each write step with the Secret's name (tests: crash here). */
  afterStep?(step: WriteStep, name: string): void | Promise<void>;
}

export interface StorageLimits {
  chunkBytes: number;
  maxReleaseBytes: number;
  historyMax: number;
  orphanGraceMs: number;
}

export interface StorageContext {
  api: SecretApi;
  namespace: string;
  indexes: InformerCache<V1Secret>;
  apps: InformerCache<V1Secret>;
  view: IndexView;
  reader: ChunkReader;
  limits: StorageLimits;
  hooks: StoreHooks;
  now(): Date;
}

export async function step(ctx: StorageContext, what: WriteStep, name: string): Promise<void> {
  await ctx.hooks.afterStep?.(what, name);
}

/** Every cached index, viewed (metadata and manifest), in no particular order. */
export function allIndexes(ctx: StorageContext): IndexEntry[] {
  const out: IndexEntry[] = [];
  const uids = new Set<string>();
  for (const secret of ctx.indexes.list(ctx.namespace)) {
    const entry = ctx.view.view(secret);
    if (!entry) continue;
    out.push(entry);
    uids.add(secret.metadata?.uid ?? '');
  }
  ctx.view.retain(uids);
  return out;
}

/**
 * The chunks of every release's current revision (its newest deployed one, else its newest): what
 * a sync's reconcile or the next deploy reads. Chunk-tail's warm-up keeps these.
 */
export function currentChunks(ctx: StorageContext): Set<string> {
  const names = new Set<string>();
  for (const release of new Set(allIndexes(ctx).map((entry) => entry.info.release))) {
    const revisions = revisionsOf(ctx, release);
    const infos = revisions.map((r) => r.info);
    const current = deployedOf(infos) ?? lastOf(infos);
    const entry = revisions.find((r) => r.info === current);
    for (const stored of entry?.entries ?? []) for (const part of stored.parts) names.add(part.chunk);
  }
  return names;
}

/** A release's cached revisions, oldest first. */
export function revisionsOf(ctx: StorageContext, release: string): IndexEntry[] {
  const out: IndexEntry[] = [];
  for (const secret of ctx.indexes.listByLabel(release, ctx.namespace)) {
    const entry = ctx.view.view(secret);
    if (entry) out.push(entry);
  }
  return out.sort((a, b) => a.info.revision - b.info.revision);
}
