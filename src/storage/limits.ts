/**
 * Size limits of release storage, and the arithmetic that keeps every Secret under them.
 *
 * The API server refuses a Secret whose `data` values total more than 1,048,576 bytes
 * (ValidateSecret sums the decoded values; this driver also counts the keys, to keep headroom for a
 * server that counts differently), and refuses request bodies over 3 MiB. etcd's default request
 * limit (1.5 MiB) covers the whole stored object, metadata included: the headroom between the
 * chunk budget and 1 MiB leaves room for ownerReferences and labels.
 */

/** core.MaxSecretSize. */
export const SECRET_DATA_LIMIT = 1_048_576;
/** The API server's request body limit. */
export const REQUEST_BODY_LIMIT = 3 * 1024 * 1024;
/** Default budget of one Secret's `data` (keys included): 900 KiB, 12% under the limit. */
export const DEFAULT_CHUNK_BYTES = 900 * 1024;
/** Default cap on a release's compressed size (all entries, reused ones included). */
export const DEFAULT_MAX_RELEASE_BYTES = 32 * 1024 * 1024;
/** Smallest chunk budget accepted: below it a release of any size needs absurdly many Secrets. */
export const MIN_CHUNK_BYTES = 16 * 1024;
/**
 * Largest chunk budget accepted: 1 MiB minus room for the metadata etcd also stores, and such that
 * the JSON request body (base64 is 4/3 of the bytes) stays far under 3 MiB.
 */
export const MAX_CHUNK_BYTES = SECRET_DATA_LIMIT - 64 * 1024;

/** What the driver counts for a Secret's data: every key's length plus every value's bytes. */
export function secretDataBytes(data: ReadonlyMap<string, Uint8Array> | Record<string, Uint8Array>): number {
  let total = 0;
  const entries = data instanceof Map ? data.entries() : Object.entries(data);
  for (const [key, value] of entries) total += Buffer.byteLength(key) + value.byteLength;
  return total;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
