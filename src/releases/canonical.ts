/**
 * Digests the engine compares with history. They must equal the ones the storage driver records
 * (`RevisionInfo.digest` and each object's digest in the index manifest), so they are computed by
 * the driver's own canonical JSON and hash rather than a copy that could drift from it. (The
 * storage index exports `contentDigest`; the per-object digest is its canonical JSON's sha256.)
 */
import { canonicalJson } from '../storage/canonical-json.ts';
import { sha256Hex } from '../storage/digest.ts';
import { contentDigest as storedContentDigest } from '../storage/entries.ts';
import type { ReleaseContent, ReleaseObject } from '../storage/types.ts';

/** sha256 (hex) of one object's canonical JSON: the digest history keeps per object. */
export function objectDigest(object: ReleaseObject): string {
  return sha256Hex(canonicalJson(object));
}

/** sha256 (hex) of the canonical JSON of `{chart, values, objects}`: `RevisionInfo.digest`. */
export function contentDigest(content: ReleaseContent): string {
  return storedContentDigest(content);
}
