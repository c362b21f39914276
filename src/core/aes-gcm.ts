/**
 * AES-256-GCM, the one cipher of every sealed form (payload values in src/jobs/sealing.ts, Secret
 * values in release history in src/releases/sealed-values.ts, answers sealed for one CLI in
 * src/jobs/reader-sealing.ts). Each form keeps its own key, IV rule, additional data, envelope and
 * error message; this holds only the cipher calls, with the parts as base64url text.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';

export interface GcmParts {
  iv: string;
  ciphertext: string;
  tag: string;
}

const b64 = (buffer: Buffer) => buffer.toString('base64url');

/** Encrypts `plaintext` (UTF-8 when text) under `key` with a 12-byte `iv`, authenticating `aad` too. */
export function gcmSeal(key: Buffer, iv: Buffer, aad: Buffer, plaintext: Buffer | string): GcmParts {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([
    typeof plaintext === 'string' ? cipher.update(plaintext, 'utf8') : cipher.update(plaintext),
    cipher.final(),
  ]);
  return { iv: b64(iv), ciphertext: b64(ciphertext), tag: b64(cipher.getAuthTag()) };
}

/** The plaintext of `parts`; throws when they fail authentication (altered, other key or `aad`). */
export function gcmOpen(key: Buffer, parts: GcmParts, aad: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts.iv, 'base64url'));
  decipher.setAAD(aad);
  decipher.setAuthTag(Buffer.from(parts.tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(parts.ciphertext, 'base64url')), decipher.final()]);
}
