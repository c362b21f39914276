/**
 * Secret values kept in release history, sealed, so a rollback can restore the values an earlier
 * revision had (docs/releases.md, "Secret values"). Next to each digest (secret-values.ts) the
 * stored form of a Secret holds `sealedData: { KEY: "lsh1.<key id>.<iv>.<ciphertext>.<tag>" }`.
 *
 * AES-256-GCM with a synthetic IV: the IV is an HMAC of the value and its place (Secret name and
 * key) under a second key, so sealing is deterministic. It has to be: the stored form of a
 * revision is what the no-op check compares (a random IV would make every redeploy look changed).
 * Equal values under one Secret and key seal equally, which says no more than equal digests
 * already do; distinct values get distinct IVs, so GCM's nonce is never reused for two plaintexts.
 * The Secret name and key are the associated data: a sealed value moved to another key or Secret
 * fails to open.
 *
 * The key (32 bytes) is derived from LONGSHORE_SECRET under its own HKDF label
 * (Sealer.historySealKey); without it history holds nothing readable, as with the digests.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import { gcmOpen, gcmSeal } from '../core/aes-gcm.ts';

const VERSION = 'lsh1';
const SEALED = /^lsh1\.([0-9a-f]{8})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]{22})$/;

export class HistoryValueSealer {
  private readonly encryptionKey: Buffer;
  private readonly ivKey: Buffer;
  /** Names the key in every sealed value, so a value sealed under another fleet secret is recognised. */
  readonly keyId: string;

  constructor(key: Uint8Array) {
    if (key.byteLength < 32) throw new RangeError('the history seal key must be at least 32 bytes');
    const derive = (label: string) =>
      Buffer.from(hkdfSync('sha256', key, '', `longshore/history/${label}`, 32));
    this.encryptionKey = derive('encryption');
    this.ivKey = derive('synthetic-iv');
    this.keyId = createHmac('sha256', derive('key-id')).update('key id').digest('hex').slice(0, 8);
  }

  /** Seals one data value (`base64`, as in a Secret's `data`) for its Secret and key. */
  seal(secretName: string, dataKey: string, base64: string): string {
    const plaintext = Buffer.from(base64, 'base64');
    const aad = placeOf(secretName, dataKey);
    const iv = createHmac('sha256', this.ivKey).update(aad).update(plaintext).digest().subarray(0, 12);
    const sealed = gcmSeal(this.encryptionKey, iv, aad, plaintext);
    return [VERSION, this.keyId, sealed.iv, sealed.ciphertext, sealed.tag].join('.');
  }

  /**
   * The value (`base64`) a sealed one stands for; undefined when it cannot be opened here (sealed
   * under another fleet secret, damaged, or moved from another Secret or key): the caller then
   * treats it as not kept.
   */
  open(secretName: string, dataKey: string, sealed: string): string | undefined {
    const match = SEALED.exec(sealed);
    if (!match || match[1] !== this.keyId) return undefined;
    const [, , iv, ciphertext, tag] = match as unknown as [string, string, string, string, string];
    try {
      return gcmOpen(this.encryptionKey, { iv, ciphertext, tag }, placeOf(secretName, dataKey)).toString(
        'base64',
      );
    } catch {
      return undefined;
    }
  }
}

function placeOf(secretName: string, dataKey: string): Buffer {
  return Buffer.from(`longshore secret value in history v1\0${secretName}\0${dataKey}\0`, 'utf8');
}
