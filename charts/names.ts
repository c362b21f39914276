/**
 * Names derived from app, process and domain names must fit Kubernetes' limits. When one is too
 * long it is shortened the same way on every render (a hash of the full name as suffix), so a
 * redeploy finds the same object instead of creating a twin.
 */
import { sha256Hex } from './hash.ts';

/** DNS-1123/1035 label: Deployment, Service and Ingress names here, Secret names, volume names. */
export const DNS_LABEL_MAX = 63;
/** A CronJob's name gets 11 characters appended for its Jobs' names, so it may have only 52. */
export const CRONJOB_NAME_MAX = 52;
/** Label values. */
export const LABEL_VALUE_MAX = 63;

/** Hex characters of the hash suffix: 32 bits, enough to keep the few names of one app apart. */
const HASH_LENGTH = 8;

/**
 * `name` unchanged when it is at most `max` characters; otherwise a prefix of it, `-`, and 8 hex
 * characters of sha256(name), at most `max` in all. Trailing `-`/`.` are cut from the prefix so
 * the result stays a DNS-1123 label (or subdomain) when the input was one.
 */
export function fitName(name: string, max: number): string {
  if (max < HASH_LENGTH + 2) throw new RangeError(`fitName: max must be at least ${HASH_LENGTH + 2}`);
  if (name.length <= max) return name;
  const hash = sha256Hex(name).slice(0, HASH_LENGTH);
  const prefix = name.slice(0, max - HASH_LENGTH - 1).replace(/[-.]+$/, '');
  return prefix ? `${prefix}-${hash}` : hash;
}

/**
 * A domain as a label fragment: `app.example.com` → `app-example-com`, `*.example.com` →
 * `wildcard-example-com`. Not injective (`a-b.com` and `a.b.com` meet), so callers that need
 * distinct names must check for collisions.
 */
export function domainSlug(domain: string): string {
  const lower = domain.toLowerCase();
  const body = lower.startsWith('*.') ? `wildcard-${lower.slice(2)}` : lower;
  return body.replace(/[^a-z0-9-]/g, '-').replace(/^-+|-+$/g, '');
}

/** 8 hex characters of sha256(text): a short, stable disambiguator. */
export function shortHash(text: string): string {
  return sha256Hex(text).slice(0, HASH_LENGTH);
}
