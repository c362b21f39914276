/**
 * ownerReferences from chunks to the indexes that use them (write step 4). Added with a strategic
 * merge patch, whose merge key for metadata.ownerReferences is the uid: the patch adds the
 * reference without reading the chunk first, and sending it again changes nothing, so completing
 * an interrupted step 4 is simply doing it again. Immutable Secrets accept it: immutability covers
 * `data` only, never metadata. Completion is recorded on the index (annotation chunks-owned).
 */
import type { V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import type { ChunkData } from './chunk-cache.ts';
import { type StorageContext, step } from './context.ts';
import { ANNOTATION_CHUNKS_OWNED } from './names.ts';
import { fromBase64Data, ownerRefTo } from './secret-builders.ts';

/**
 * Adds `owners` to one chunk; undefined when the chunk does not exist, else its data (the patch's
 * answer carries it). The data goes into the chunk cache, so reading back the revision just
 * written costs no GET.
 */
export async function addOwners(
  ctx: StorageContext,
  chunk: string,
  owners: V1OwnerReference[],
): Promise<ChunkData | undefined> {
  const patched = await ctx.api.patchStrategic(chunk, { metadata: { ownerReferences: owners } });
  if (!patched) return undefined;
  const data = fromBase64Data(patched.data);
  if (!ctx.reader.bad.has(chunk)) ctx.reader.cache.set(chunk, data);
  return data;
}

/** Makes every chunk of `index` list it as owner; returns each chunk's data (undefined: missing). */
export async function ownChunks(
  ctx: StorageContext,
  index: V1Secret,
  chunks: Iterable<string>,
): Promise<Map<string, ChunkData | undefined>> {
  const ref = ownerRefTo(index);
  const found = new Map<string, ChunkData | undefined>();
  for (const name of [...chunks].sort()) {
    found.set(name, await addOwners(ctx, name, [ref]));
    await step(ctx, 'owner', name);
  }
  return found;
}

/** Records on the index that step 4 is complete, so prune need not check its chunks again. */
export async function markOwned(ctx: StorageContext, index: V1Secret): Promise<V1Secret> {
  const name = index.metadata?.name ?? '';
  if (index.metadata?.annotations?.[ANNOTATION_CHUNKS_OWNED] === 'true') return index;
  const patched = await ctx.api.patchMerge(name, {
    metadata: { annotations: { [ANNOTATION_CHUNKS_OWNED]: 'true' } },
  });
  if (!patched) return index;
  ctx.indexes.wrote(patched);
  return patched;
}
