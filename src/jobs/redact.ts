/**
 * Copies of payloads safe to show an operator: every sealed value becomes `[sealed]`. Sealed
 * values are ciphertext already; hiding them keeps listings short and dumps free of key material
 * that could be attacked offline.
 */
import { isSealedForReader } from './reader-sealing.ts';
import { isSealed } from './sealing.ts';

export const SEALED_PLACEHOLDER = '[sealed]';
/** A read job's answer sealed for the CLI that asked (config-read): no one else can open it. */
export const READER_SEALED_PLACEHOLDER = '[sealed for the CLI that asked]';

export function redactSealed<T>(value: T): T {
  if (typeof value === 'string')
    return (
      isSealed(value) ? SEALED_PLACEHOLDER : isSealedForReader(value) ? READER_SEALED_PLACEHOLDER : value
    ) as T;
  if (Array.isArray(value)) return value.map((v) => redactSealed(v)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactSealed(v)])) as T;
  }
  return value;
}
