/**
 * Sealing of secret-bearing payload fields (config values, registry passwords, run env).
 *
 * AES-256-GCM under a key derived with scrypt from the fleet passphrase (LONGSHORE_SECRET). Every
 * value is bound to its place with GCM's associated data (`config:APP:KEY`), so a sealed value
 * cannot be moved to another key or app inside a payload. The envelope names the key id, so a
 * worker holding a different passphrase says so instead of reporting a corrupt value.
 *
 * Rotation (docs/operations.md, "Rotating the sealing key"): a process given the previous
 * passphrase too (LONGSHORE_SECRET_PREVIOUS) seals with the current key only and opens a value
 * under whichever of the two its key id names, so jobs enqueued before the rotation still run.
 *
 * Format (text, fits in JSON): `lss1.<key id: 8 hex>.<iv: base64url>.<ciphertext: base64url>.<tag: base64url>`
 */
import { createHash, hkdfSync, randomBytes, scrypt, scryptSync } from 'node:crypto';
import { gcmOpen, gcmSeal } from '../core/aes-gcm.ts';
import { SealingError } from '../core/errors.ts';

const VERSION = 'lss1';
const SALT = 'longshore/sealing/v1';
export const SEALED = /^lss1\.([0-9a-f]{8})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]{22})$/;

/** A value sealed with the fleet key; schemas/sealed-value.ts checks the format in payloads. */
export type SealedValue = string;

export function isSealed(value: string): boolean {
  return SEALED.test(value);
}

interface DerivedKey {
  key: Buffer;
  keyId: string;
}

const keyCache = new Map<string, DerivedKey>();
const pending = new Map<string, Promise<DerivedKey>>();

// scrypt makes a guessed passphrase expensive to test against a sealed value found in a dump.
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;

function remember(passphrase: string, key: Buffer): DerivedKey {
  const keyId = createHash('sha256').update(key).update('key-id').digest('hex').slice(0, 8);
  const derived = { key, keyId };
  keyCache.set(passphrase, derived);
  return derived;
}

function deriveKey(passphrase: string): DerivedKey {
  return keyCache.get(passphrase) ?? remember(passphrase, scryptSync(passphrase, SALT, 32, SCRYPT));
}

/**
 * Starts deriving the key on libuv's thread pool (about 100 ms of CPU) and resolves with it: a CLI
 * call starts this first, so the derivation runs beside module loading and the Redis connection
 * instead of after them (docs/cli-startup.md). Later calls share the one derivation.
 */
export function deriveKeyInBackground(passphrase: string): Promise<DerivedKey> {
  const cached = keyCache.get(passphrase);
  if (cached) return Promise.resolve(cached);
  let derivation = pending.get(passphrase);
  if (!derivation) {
    derivation = new Promise<DerivedKey>((resolve, reject) => {
      scrypt(passphrase, SALT, 32, SCRYPT, (err, key) =>
        err ? reject(err) : resolve(remember(passphrase, key)),
      );
    });
    // A failed derivation is not remembered: the next call tries again.
    derivation.catch(() => pending.delete(passphrase));
    pending.set(passphrase, derivation);
  }
  return derivation;
}

export class Sealer {
  private readonly key: Buffer;
  readonly keyId: string;
  /** The previous passphrase's key during a rotation: opens, never seals. */
  private readonly previous: DerivedKey | undefined;

  /** A Sealer whose keys are derived off the main thread (see deriveKeyInBackground). */
  static async create(passphrase: string, previousPassphrase?: string): Promise<Sealer> {
    await Promise.all([
      deriveKeyInBackground(passphrase),
      previousPassphrase ? deriveKeyInBackground(previousPassphrase) : undefined,
    ]);
    return new Sealer(passphrase, previousPassphrase);
  }

  constructor(passphrase: string, previousPassphrase?: string) {
    const derived = deriveKey(passphrase);
    this.key = derived.key;
    this.keyId = derived.keyId;
    const previous = previousPassphrase ? deriveKey(previousPassphrase) : undefined;
    // The same passphrase twice is no rotation: one key.
    this.previous = previous && previous.keyId !== derived.keyId ? previous : undefined;
  }

  /** The key id of the previous passphrase during a rotation, for logs. */
  get previousKeyId(): string | undefined {
    return this.previous?.keyId;
  }

  /**
   * The key of the digests release history keeps instead of Secret values (HMAC-SHA256, see
   * src/releases/secret-values.ts): derived from the same scrypt key, under its own HKDF label, so
   * it is as hard to guess as the passphrase and never usable to open a sealed value.
   */
  valueDigestKey(): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, SALT, 'longshore/secret-value-digests/v1', 32));
  }

  /**
   * The key that seals Secret values in release history, so a rollback can restore them
   * (src/releases/sealed-values.ts): from the same scrypt key, under its own HKDF label, so a
   * value in history and a sealed payload value never share a key.
   */
  historySealKey(): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, SALT, 'longshore/secret-value-history/v1', 32));
  }

  /** Seals `plaintext` for the place named by `context` (e.g. `config:web:DATABASE_URL`). */
  seal(plaintext: string, context: string): SealedValue {
    const { iv, ciphertext, tag } = gcmSeal(
      this.key,
      randomBytes(12),
      Buffer.from(context, 'utf8'),
      plaintext,
    );
    return [VERSION, this.keyId, iv, ciphertext, tag].join('.');
  }

  /** Opens a sealed value; fails with a SealingError naming the cause (other key, tampering, wrong place). */
  open(sealed: string, context: string): string {
    const match = SEALED.exec(sealed);
    if (!match) throw new SealingError(`${context}: not a sealed value`);
    const [, keyId, iv, ciphertext, tag] = match as unknown as [string, string, string, string, string];
    const key =
      keyId === this.keyId ? this.key : keyId === this.previous?.keyId ? this.previous.key : undefined;
    if (!key) {
      const has = this.previous ? `${this.keyId} and previous ${this.previous.keyId}` : this.keyId;
      throw new SealingError(
        `${context}: sealed with another LONGSHORE_SECRET (key id ${keyId}, this process has ${has}); ` +
          'producers and workers must share the same passphrase (during a rotation, set the old one as LONGSHORE_SECRET_PREVIOUS)',
      );
    }
    try {
      return gcmOpen(key, { iv, ciphertext, tag }, Buffer.from(context, 'utf8')).toString('utf8');
    } catch {
      throw new SealingError(
        `${context}: sealed value failed authentication (tampered, or sealed for another field)`,
      );
    }
  }
}

/** Places a sealed value may belong to; one function so producers and workers agree byte for byte. */
export const sealContext = {
  config: (app: string, key: string) => `config:${app}:${key}`,
  registryPassword: (app: string) => `registry:${app}:password`,
  /** A fleet-wide credential (`registry:login --global`), bound to its server. */
  registryGlobalPassword: (server: string) => `registry-global:${server}:password`,
  runEnv: (app: string, key: string) => `run:${app}:${key}`,
  /** A KEDA trigger authentication parameter (`autoscaling-auth:set`). */
  autoscalingAuth: (app: string, trigger: string, key: string) => `autoscaling-auth:${app}:${trigger}:${key}`,
};
