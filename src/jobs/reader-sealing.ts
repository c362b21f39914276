/**
 * Sealing a read job's answer for the one CLI process that asked (`config:show`, `config:get`):
 * the job's return value sits in Redis (the job hash, the events stream) for as long as the queue
 * keeps finished jobs, so it must be ciphertext — and ciphertext the fleet key cannot open either,
 * since every worker and producer holds LONGSHORE_SECRET.
 *
 * The CLI makes an ephemeral X25519 key pair and puts the public key in the payload; the worker
 * makes its own ephemeral pair, derives a key from the ECDH shared secret with HKDF-SHA256 (salt:
 * both public keys), and seals the answer with AES-256-GCM, the context (`config-read:APP`) and
 * the asking key as associated data. Only the private key, which never leaves the CLI process,
 * opens it; it is gone when the process exits.
 *
 * Format: `lsr1.<worker public key>.<iv>.<ciphertext>.<tag>`, base64url parts.
 */
import {
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { z } from 'zod';
import { gcmOpen, gcmSeal } from '../core/aes-gcm.ts';
import { SealingError } from '../core/errors.ts';

const VERSION = 'lsr1';
const INFO = 'longshore/reader-sealing/v1';
const KEY = /^[A-Za-z0-9_-]{43}$/;
const SEALED = /^lsr1\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]{22})$/;

/** A raw X25519 public key, base64url (32 bytes): the payload field naming who may read the answer. */
export const readerPublicKey = z
  .string()
  .regex(KEY, 'must be an X25519 public key (32 bytes, base64url); the CLI makes one per request');

export function isSealedForReader(value: unknown): boolean {
  return typeof value === 'string' && SEALED.test(value);
}

const publicKeyFrom = (x: string): KeyObject =>
  createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x }, format: 'jwk' });

const rawOf = (key: KeyObject): string => key.export({ format: 'jwk' }).x as string;

function derive(shared: Buffer, senderPublic: string, readerPublic: string, context: string): Buffer {
  const salt = Buffer.concat([
    Buffer.from(senderPublic, 'base64url'),
    Buffer.from(readerPublic, 'base64url'),
  ]);
  return Buffer.from(hkdfSync('sha256', shared, salt, `${INFO}:${context}`, 32));
}

const aad = (context: string, readerPublic: string) => Buffer.from(`${context}\n${readerPublic}`, 'utf8');

/** Seals `plaintext` (worker side) so only the holder of `readerPublic`'s private key opens it. */
export function sealForReader(plaintext: string, readerPublic: string, context: string): string {
  if (!KEY.test(readerPublic)) throw new SealingError(`${context}: not a reader public key`);
  const mine = generateKeyPairSync('x25519');
  const senderPublic = rawOf(mine.publicKey);
  const shared = diffieHellman({ privateKey: mine.privateKey, publicKey: publicKeyFrom(readerPublic) });
  const key = derive(shared, senderPublic, readerPublic, context);
  const { iv, ciphertext, tag } = gcmSeal(key, randomBytes(12), aad(context, readerPublic), plaintext);
  return [VERSION, senderPublic, iv, ciphertext, tag].join('.');
}

/** The CLI side: an ephemeral key pair, its public half for the payload, and `open` for the answer. */
export class ReaderKey {
  private readonly privateKey: KeyObject;
  readonly publicKey: string;

  constructor() {
    const pair = generateKeyPairSync('x25519');
    this.privateKey = pair.privateKey;
    this.publicKey = rawOf(pair.publicKey);
  }

  /** Opens an answer sealed for this key; a SealingError when it is not one, was altered, or is for another key or context. */
  open(sealed: unknown, context: string): string {
    const match = typeof sealed === 'string' ? SEALED.exec(sealed) : null;
    if (!match) throw new SealingError(`${context}: the answer is not sealed for a reader (lsr1.…)`);
    const [, senderPublic, iv, ciphertext, tag] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
    ];
    try {
      const shared = diffieHellman({ privateKey: this.privateKey, publicKey: publicKeyFrom(senderPublic) });
      const key = derive(shared, senderPublic, this.publicKey, context);
      return gcmOpen(key, { iv, ciphertext, tag }, aad(context, this.publicKey)).toString('utf8');
    } catch {
      throw new SealingError(
        `${context}: the answer failed authentication (altered, or sealed for another request)`,
      );
    }
  }
}
