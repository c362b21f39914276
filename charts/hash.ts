/** sha256 in lowercase hex: the only hash charts use, for name suffixes and label-safe ids. */
import { createHash } from 'node:crypto';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
