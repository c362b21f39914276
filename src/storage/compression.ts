/**
 * gzip of entry bytes with fflate. Deterministic (no mtime, no file name, fixed level), so the same
 * entry always compresses to the same bytes: a retried write after a crash produces the same
 * content-addressed chunk names and finds its earlier chunks already stored.
 */
import { gunzipSync, gzipSync } from 'fflate';

const LEVEL = 6;

export function gzip(bytes: Uint8Array): Uint8Array {
  return gzipSync(bytes, { level: LEVEL, mtime: 0 });
}

/**
 * Inflates `bytes`, refusing before allocating anything when the gzip trailer's size (ISIZE,
 * length mod 2^32) disagrees with the size the manifest recorded: corrupt data must not make a
 * reader allocate gigabytes.
 */
export function gunzip(bytes: Uint8Array, expectedSize: number): Uint8Array {
  if (bytes.byteLength < 18 || bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 0x08) {
    throw new Error('not gzip data');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const isize = view.getUint32(bytes.byteLength - 4, true);
  if (isize !== expectedSize % 2 ** 32) {
    throw new Error(`gzip trailer says ${isize} bytes, the manifest ${expectedSize}`);
  }
  const out = gunzipSync(bytes, { out: new Uint8Array(expectedSize) });
  if (out.byteLength !== expectedSize)
    throw new Error(`inflated to ${out.byteLength} bytes, expected ${expectedSize}`);
  return out;
}
