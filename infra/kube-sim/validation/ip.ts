/**
 * IP addresses as netutils.ParseIPSloppy reads them (apimachinery/pkg/util/validation/ip.go
 * IsValidIP): Go's net.ParseIP, which also takes IPv4 parts with leading zeros.
 */
import { isIP } from 'node:net';
import type { FieldError } from '../errors.ts';
import { invalid, type Path } from './field.ts';

const SLOPPY_V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** 4 or 6 for a valid address, 0 otherwise. */
export function ipFamilyOf(value: string): 0 | 4 | 6 {
  const family = isIP(value);
  if (family === 4 || family === 6) return value.includes('%') ? 0 : family;
  const m = SLOPPY_V4.exec(value);
  return m?.slice(1).every((part) => Number(part) <= 255) ? 4 : 0;
}

/** IsValidIP. */
export function validateIP(value: string, path: Path): FieldError[] {
  return ipFamilyOf(value) === 0
    ? [invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')]
    : [];
}

/** IsValidCIDR. */
export function validateCIDR(value: string, path: Path): FieldError[] {
  const [address = '', bits, ...rest] = value.split('/');
  const family = ipFamilyOf(address);
  const prefix = Number(bits);
  const max = family === 6 ? 128 : 32;
  const ok = family !== 0 && rest.length === 0 && /^\d+$/.test(bits ?? '') && prefix <= max;
  return ok ? [] : [invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}
