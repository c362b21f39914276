/**
 * How `config:show` and `config:get` print an app's config (docs/apps.md, "Reading config"):
 * values masked unless `--reveal`, aligned `KEY  value` lines for people, `--dotenv` lines that
 * `config:set APP -` reads back to the same bytes, a JSON object for scripts, and `config:get`'s
 * value exactly as stored.
 */
import { formatDotenvLine } from '../sources/dotenv.ts';

/** Never the whole value: its first 3 characters when it has at least 12, else only that it is set. */
export function maskValue(value: string): string {
  if (value === '') return '(empty)';
  const chars = Array.from(value);
  if (chars.length < 12) return '********';
  // A line break or control character in the shown part would break the aligned view.
  const shown = chars.slice(0, 3).map((c) => (/[\p{Cc}]/u.test(c) ? '·' : c));
  return `${shown.join('')}…`;
}

/**
 * A revealed value as an aligned line shows it: as it is when it is one plain line, else
 * double-quoted with dotenv's escapes (a line break, leading or trailing space, an empty value).
 */
export function shownValue(value: string): string {
  const plain = value !== '' && value.trim() === value && !/[\p{Cc}"]/u.test(value);
  return plain ? value : formatDotenvLine('', value).slice(1);
}

/** `KEY  value` lines, the values starting in one column. */
export function alignedLines(config: Record<string, string>, reveal: boolean): string[] {
  const keys = Object.keys(config).sort();
  const width = Math.max(0, ...keys.map((k) => k.length));
  return keys.map(
    (k) => `${k.padEnd(width)}  ${reveal ? shownValue(config[k] as string) : maskValue(config[k] as string)}`,
  );
}

export function maskedObject(config: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, maskValue(v)]));
}
