/**
 * Writing one chunk Secret. Its name is derived from its content, so AlreadyExists normally means
 * "already stored" (a retried write after a crash): fine. The stored bytes are compared anyway —
 * that path is rare and a GET is cheap there — because a Secret squatting the name with other
 * bytes (tampering, or a corrupted restore) would otherwise spoil every revision that reuses it.
 * Such a chunk is replaced: deleted (uid precondition) and created again with the right bytes.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { PermanentError } from '../core/errors.ts';
import { type StorageContext, step } from './context.ts';
import type { PackedChunk } from './packing.ts';
import { buildChunk, fromBase64Data } from './secret-builders.ts';

function sameData(a: ReadonlyMap<string, Uint8Array>, b: ReadonlyMap<string, Uint8Array>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) {
    const other = b.get(key);
    if (!other || !Buffer.from(other.buffer, other.byteOffset, other.byteLength).equals(value)) return false;
  }
  return true;
}

export async function writeChunk(
  ctx: StorageContext,
  chunk: PackedChunk,
  app: string,
  release: string,
  appRecord: V1Secret,
): Promise<void> {
  const secret = buildChunk(chunk, app, release, appRecord);
  let stored = false;
  for (let attempt = 0; attempt < 3 && !stored; attempt++) {
    const outcome = await ctx.api.create(secret);
    if ('created' in outcome) {
      stored = true;
      break;
    }
    const live = await ctx.api.get(chunk.name);
    if (!live) continue; // deleted in between: create again
    if (live.type === secret.type && sameData(fromBase64Data(live.data), chunk.data)) {
      stored = true;
      break;
    }
    await ctx.api.delete(chunk.name, { uid: live.metadata?.uid ?? '' });
  }
  if (!stored)
    throw new PermanentError(`chunk ${chunk.name} exists with other content and could not be replaced`);
  ctx.reader.bad.delete(chunk.name);
  ctx.reader.cache.set(chunk.name, chunk.data);
  await step(ctx, 'chunk', chunk.name);
}
