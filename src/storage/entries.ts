/**
 * A revision's content as entries, the unit of storage and of deduplication: one entry per
 * rendered object, plus one for the chart identity and the values. Each entry is its canonical
 * JSON (UTF-8), identified by the sha256 of those bytes. A revision that changes one object of
 * fifty has forty-nine entries whose digests are already stored.
 */

import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import { sha256Hex } from './digest.ts';
import type { ObjectRef, ReleaseContent, ReleaseObject } from './types.ts';

export type EntryType = 'chart' | 'object';

export interface EncodedEntry {
  type: EntryType;
  /** For objects: their identity (also listed in history without decoding). */
  ref?: ObjectRef;
  /** Canonical JSON, UTF-8. */
  bytes: Uint8Array;
  /** sha256 of `bytes`, hex. */
  digest: string;
}

export interface EncodedContent {
  entries: EncodedEntry[];
  /** contentDigest() of the same content. */
  digest: string;
  /** Total canonical JSON bytes of the entries. */
  renderedBytes: number;
}

export function refOf(object: ReleaseObject): ObjectRef {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    name: object.metadata.name,
  };
}

/**
 * Splits content into entries and computes the revision digest in the same pass: the digest is
 * sha256 of `{"chart":C,"objects":[O1,…],"values":V}` (the canonical JSON of the three fields), built
 * from the pieces the entries already serialized instead of serializing a large release twice.
 */
export function encodeContent(content: ReleaseContent): EncodedContent {
  const chart = canonicalJson(content.chart);
  const values = canonicalJson(content.values);
  const hash = createHash('sha256');
  hash.update(`{"chart":${chart},"objects":[`);
  const chartBytes = Buffer.from(`{"chart":${chart},"values":${values}}`);
  const entries: EncodedEntry[] = [{ type: 'chart', bytes: chartBytes, digest: sha256Hex(chartBytes) }];
  let renderedBytes = chartBytes.byteLength;
  content.objects.forEach((object, i) => {
    const text = canonicalJson(object);
    hash.update(i === 0 ? text : `,${text}`);
    const bytes = Buffer.from(text);
    renderedBytes += bytes.byteLength;
    entries.push({ type: 'object', ref: refOf(object), bytes, digest: sha256Hex(bytes) });
  });
  hash.update(`],"values":${values}}`);
  return { entries, digest: hash.digest('hex'), renderedBytes };
}

/**
 * The digest of a revision's content: sha256 (hex) of the canonical JSON of
 * `{chart, values, objects}`. Equal digests mean equal content; the release engine compares it with
 * `RevisionInfo.digest` to detect a no-op upgrade.
 */
export function contentDigest(content: ReleaseContent): string {
  return sha256Hex(canonicalJson({ chart: content.chart, values: content.values, objects: content.objects }));
}

/** Rebuilds content from decoded entry bytes (in manifest order: chart entry, then objects). */
export function decodeContent(entries: { type: EntryType; bytes: Uint8Array }[]): ReleaseContent {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let chartEntry: { chart: ReleaseContent['chart']; values: ReleaseContent['values'] } | undefined;
  const objects: ReleaseObject[] = [];
  for (const entry of entries) {
    const parsed: unknown = JSON.parse(decoder.decode(entry.bytes));
    if (entry.type === 'chart') chartEntry = parsed as typeof chartEntry;
    else objects.push(parsed as ReleaseObject);
  }
  if (!chartEntry) throw new Error('no chart entry');
  return { chart: chartEntry.chart, values: chartEntry.values, objects };
}
