/**
 * Secret values never enter release history. Every Secret a release stores keeps its keys and, per
 * key, a digest of the value, in place of `data`/`stringData`:
 *
 *   { kind: Secret, metadata, type, redactedData: { DATABASE_URL: "hmac-sha256:<key id>:<64 hex>" } }
 *
 * The live Secret (in the app's namespace) is the source of the values a job builds on: whatever
 * needs them reads it and checks each value against its digest (valuesFromLive). A value changed
 * or removed by hand is therefore detected, and not silently repaired. History also keeps each
 * value sealed under the fleet key (sealed-values.ts), and only a rollback opens them: it restores
 * what its target revision had — see docs/releases.md, "Secret values".
 *
 * Why a keyed HMAC and not a plain or salted hash: env values are often short or structured
 * (`true`, a port, a 6-digit PIN, a URL with a short password), so sha256(value) can be searched
 * offline by anyone who can read the system namespace. A random salt per revision would make equal
 * values digest differently, and a no-op redeploy would always look changed. HMAC-SHA256 under a
 * key derived from the fleet secret (Sealer.valueDigestKey) is deterministic across workers and
 * revisions, so digests compare, and useless without the fleet secret. The Secret name and the key
 * are part of the input, so equal values under different keys or apps do not show as equal.
 *
 * The key id (8 hex, derived from the digest key) says which fleet secret made a digest. A digest
 * made under another one (LONGSHORE_SECRET was changed) cannot be checked: the live value is taken
 * as it is, and the next write digests it under the current key — one new revision with the same
 * values, instead of every value of every app looking lost.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ObjectRef, ReleaseContent, ReleaseObject } from '../storage/types.ts';
import { comparableForm } from './drift.ts';
import { refOf } from './objects.ts';
import type { HistoryValueSealer } from './sealed-values.ts';

/** The field a stored Secret keeps its digests in (not a Kubernetes field: never applied). */
export const REDACTED_FIELD = 'redactedData';
/** The field a stored Secret keeps its values in, sealed (sealed-values.ts; never applied). */
export const SEALED_FIELD = 'sealedData';
const PREFIX = 'hmac-sha256:';
const DOMAIN = 'longshore secret value v1';

/** How a live value compares with a stored digest. */
export type DigestVerdict = 'match' | 'differs' | 'other-key';

export class ValueDigester {
  private readonly key: Buffer;
  /** Names the key in every digest, so a digest made under another fleet secret is recognised. */
  readonly keyId: string;

  constructor(key: Uint8Array) {
    if (key.byteLength < 32) throw new RangeError('the secret value digest key must be at least 32 bytes');
    this.key = Buffer.from(key);
    this.keyId = createHmac('sha256', this.key).update(`${DOMAIN}\0key id`).digest('hex').slice(0, 8);
  }

  /** Digest of one data value (`base64` as in a Secret's `data`), bound to its Secret and key. */
  digest(secretName: string, dataKey: string, base64: string): string {
    const mac = createHmac('sha256', this.key);
    mac.update(`${DOMAIN}\0${secretName}\0${dataKey}\0`);
    mac.update(Buffer.from(base64, 'base64'));
    return `${PREFIX}${this.keyId}:${mac.digest('hex')}`;
  }

  verdict(expected: string, secretName: string, dataKey: string, base64: string): DigestVerdict {
    if (!expected.startsWith(`${PREFIX}${this.keyId}:`)) return 'other-key';
    const a = Buffer.from(expected);
    const b = Buffer.from(this.digest(secretName, dataKey, base64));
    return a.length === b.length && timingSafeEqual(a, b) ? 'match' : 'differs';
  }
}

type SecretLike = ReleaseObject & {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  [REDACTED_FIELD]?: Record<string, string>;
  [SEALED_FIELD]?: Record<string, string>;
};

export function isSecret(object: ReleaseObject): boolean {
  return object.kind === 'Secret' && (object.apiVersion === 'v1' || object.apiVersion === '');
}

/** A Secret in stored form already (its values replaced by digests). */
export function isRedacted(object: ReleaseObject): boolean {
  return isSecret(object) && (object as SecretLike)[REDACTED_FIELD] !== undefined;
}

/** A Secret whose values are in clear (as rendered, or as history stored it before redaction). */
export function holdsValues(object: ReleaseObject): boolean {
  return isSecret(object) && !isRedacted(object);
}

/**
 * The stored form of an object: Secrets with digests in place of values (and, given a sealer, the
 * values sealed beside them, so a rollback can restore them); anything else as it is.
 */
export function redactObject(
  object: ReleaseObject,
  digester: ValueDigester,
  sealer?: HistoryValueSealer,
): ReleaseObject {
  if (!holdsValues(object)) return object;
  const { data, stringData: _folded, ...rest } = comparableForm(object) as unknown as SecretLike;
  const name = object.metadata.name;
  const digests: Record<string, string> = {};
  const sealed: Record<string, string> = {};
  for (const key of Object.keys(data ?? {}).sort()) {
    digests[key] = digester.digest(name, key, data![key]!);
    if (sealer) sealed[key] = sealer.seal(name, key, data![key]!);
  }
  return {
    ...rest,
    [REDACTED_FIELD]: digests,
    ...(sealer ? { [SEALED_FIELD]: sealed } : {}),
  } as ReleaseObject;
}

export function redactContent(
  content: ReleaseContent,
  digester: ValueDigester,
  sealer?: HistoryValueSealer,
): ReleaseContent {
  return { ...content, objects: content.objects.map((o) => redactObject(o, digester, sealer)) };
}

/**
 * The values a stored Secret keeps sealed (base64, as in `data`), and the keys of its digests it
 * keeps no openable value for (history written before values were sealed, or sealed under another
 * fleet secret): those can only come from the live Secret.
 */
export function sealedValuesOf(
  stored: ReleaseObject,
  sealer: HistoryValueSealer | undefined,
): { data: Record<string, string>; missing: string[] } {
  const { [REDACTED_FIELD]: digests = {}, [SEALED_FIELD]: sealed = {} } = stored as SecretLike;
  const data: Record<string, string> = {};
  const missing: string[] = [];
  for (const key of Object.keys(digests).sort()) {
    const value =
      sealer && sealed[key] !== undefined ? sealer.open(stored.metadata.name, key, sealed[key]) : undefined;
    if (value === undefined) missing.push(key);
    else data[key] = value;
  }
  return { data, missing };
}

/** Does any object of this content still hold Secret values (history written before redaction)? */
export function contentHoldsValues(content: ReleaseContent): boolean {
  return content.objects.some(holdsValues);
}

export type LostReason = 'removed' | 'changed' | 'secret-gone';

export interface LostValue {
  key: string;
  reason: LostReason;
}

export interface LiveValues {
  ref: ObjectRef;
  /** Values (base64, as in `data`) of the keys whose live value matches its digest. */
  data: Record<string, string>;
  /** Keys whose live value is gone or differs from the digest: history cannot give them back. */
  lost: LostValue[];
}

/**
 * The values a stored Secret stands for, taken from its live copy: each key whose live value
 * matches the stored digest. `live` is the object as the API server returns it (undefined: gone).
 * `later` are the same Secret as revisions after the stored one hold it (failed or interrupted,
 * so possibly live): a value such a revision already wrote is the live truth, not a loss — the
 * live Secret is the one place values are kept (docs/releases.md, "Secret values").
 */
export function valuesFromLive(
  stored: ReleaseObject,
  live: unknown,
  digester: ValueDigester,
  later: readonly ReleaseObject[] = [],
): LiveValues {
  const name = stored.metadata.name;
  const digestsOf = (o: ReleaseObject) => (redactObject(o, digester) as SecretLike)[REDACTED_FIELD] ?? {};
  const digests = digestsOf(stored);
  const laterDigests = later.map(digestsOf);
  const liveData =
    live && typeof live === 'object' ? ((live as { data?: Record<string, string> }).data ?? {}) : undefined;
  const data: Record<string, string> = {};
  const lost: LostValue[] = [];
  const keys = new Set([...Object.keys(digests), ...laterDigests.flatMap((d) => Object.keys(d))]);
  for (const key of [...keys].sort()) {
    const value = liveData?.[key];
    const candidates = [digests[key], ...laterDigests.map((d) => d[key])].filter(
      (d): d is string => d !== undefined,
    );
    const verdicts =
      value === undefined ? [] : candidates.map((digest) => digester.verdict(digest, name, key, value));
    if (verdicts.includes('match') || verdicts.includes('other-key')) {
      data[key] = value!;
      continue;
    }
    // A key only a failed or interrupted revision had was never deployed: its absence is no loss.
    if (digests[key] === undefined) continue;
    if (liveData === undefined) lost.push({ key, reason: 'secret-gone' });
    else if (value === undefined) lost.push({ key, reason: 'removed' });
    else lost.push({ key, reason: 'changed' });
  }
  return { ref: refOf(stored), data, lost };
}

/** The object to apply for a stored Secret, given its values (base64). */
export function withValues(stored: ReleaseObject, data: Record<string, string>): ReleaseObject {
  if (!isRedacted(stored)) return stored;
  const { [REDACTED_FIELD]: _digests, [SEALED_FIELD]: _sealed, ...rest } = stored as SecretLike;
  return { ...rest, data: { ...data } } as ReleaseObject;
}

/** `A (removed from Secret default/config-web), B (changed in Secret default/config-web)`. */
export function describeLost(values: Pick<LiveValues, 'ref' | 'lost'>): string {
  const where = `${values.ref.namespace ? `${values.ref.namespace}/` : ''}${values.ref.name}`;
  return values.lost
    .map(({ key, reason }) => {
      if (reason === 'removed') return `${key} (removed from Secret ${where})`;
      if (reason === 'changed') return `${key} (changed in Secret ${where})`;
      return `${key} (Secret ${where} is gone)`;
    })
    .join(', ');
}
