/**
 * Hashes and the names derived from them: sha256 in hex for content digests, and lowercase RFC 4648
 * base32 (no padding) for Secret names and data keys, whose alphabet (a–z, 2–7) is valid in
 * DNS-1123 subdomains and in Secret data keys alike.
 */
import { createHash } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

export function sha256(data: string | Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

export function sha256Hex(data: string | Uint8Array): string {
  return sha256(data).toString('hex');
}

/** Lowercase base32 without padding. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}
