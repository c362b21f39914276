/**
 * Printing for the CLI: aligned tables, key/value blocks and times for people, JSON for scripts.
 * Widths are measured as a terminal shows them (colour codes take no room, CJK and emoji take two
 * columns), so coloured and unicode cells still line up.
 */

export interface Output {
  json: boolean;
  /** Result lines (stdout). */
  out(line: string): void;
  /** Progress and diagnostics (stderr in --json mode, so stdout stays parseable). */
  info(line: string): void;
  error(line: string): void;
  data(value: unknown): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    out: (line) => process.stdout.write(`${line}\n`),
    info: (line) => (json ? process.stderr : process.stdout).write(`${line}\n`),
    error: (line) => process.stderr.write(`${line}\n`),
    data: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  };
}

/** Columns separated by two spaces; headers through `header` (bold on a terminal). */
export function table(
  headers: string[],
  rows: string[][],
  header: (text: string) => string = (h) => h,
): string {
  return columns([headers.map(header), ...rows]).join('\n');
}

/** Rows with their cells padded to each column's widest (the last column is not padded). */
export function columns(rows: string[][]): string[] {
  const count = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: count }, (_, i) =>
    Math.max(0, ...rows.map((r) => visibleWidth(r[i] ?? ''))),
  );
  return rows.map((cells) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : padEnd(c, widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * `key   value` lines, the values in one column. An empty key continues the row above; a value
 * with newlines keeps its later lines under its first.
 */
export function keyValues(rows: [key: string, value: string][]): string[] {
  const width = Math.max(0, ...rows.map(([k]) => visibleWidth(k))) + 2;
  const indent = ' '.repeat(width);
  return rows.map(([k, v]) => `${padEnd(k, width)}${v.split('\n').join(`\n${indent}`)}`.trimEnd());
}

/** A time as `2 minutes ago (2026-12-01T10:58:42Z)`; `-` for none. Epoch ms, ISO text or a Date. */
export function formatTime(at: number | string | Date | undefined | null, now: number = Date.now()): string {
  if (at === undefined || at === null || at === '' || at === 0) return '-';
  const ms = at instanceof Date ? at.getTime() : typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(ms)) return String(at);
  return `${relativeTime(ms, now)} (${isoSeconds(ms)})`;
}

/** ISO 8601 in UTC to the second: `2026-12-01T10:58:42Z`. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const UNITS: [name: string, seconds: number][] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

/** `just now`, `1 second ago`, `3 days ago`, `in 5 minutes` (a clock ahead of this one). */
export function relativeTime(ms: number, now: number = Date.now()): string {
  // Whole seconds of both, as the ISO form shows them: `1 minute ago (10:58:42Z)` at 11:00:42.3 would read wrong.
  const seconds = Math.abs(Math.floor(now / 1000) - Math.floor(ms / 1000));
  if (seconds === 0) return 'just now';
  const [name, size] = UNITS.find(([, s]) => seconds >= s) ?? ['second', 1];
  const n = Math.floor(seconds / size);
  const amount = `${n} ${name}${n === 1 ? '' : 's'}`;
  return ms > now ? `in ${amount}` : `${amount} ago`;
}

// CSI sequences (colours and the like) and OSC sequences (hyperlinks) print nothing.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point
const ESCAPES = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

export function stripAnsi(text: string): string {
  return text.replace(ESCAPES, '');
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Columns a terminal gives `text`: escapes 0, combining marks 0, wide and emoji 2. */
export function visibleWidth(text: string): number {
  const plain = stripAnsi(text);
  // ASCII only (the usual case): one column a character.
  if (/^[\x20-\x7e]*$/.test(plain)) return plain.length;
  let width = 0;
  for (const { segment } of graphemes.segment(plain)) width += graphemeWidth(segment);
  return width;
}

function graphemeWidth(g: string): number {
  const first = g.codePointAt(0) ?? 0;
  if (first < 0x20 || (first >= 0x7f && first < 0xa0)) return 0;
  if (/^[\p{Mn}\p{Me}\p{Cf}]+$/u.test(g)) return 0;
  if (/\p{Extended_Pictographic}/u.test(g) && (/\uFE0F/.test(g) || first >= 0x1f000)) return 2;
  return isWide(first) ? 2 : 1;
}

/** East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth W and F, by block). */
const WIDE: [number, number][] = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x3fffd],
];

function isWide(cp: number): boolean {
  return WIDE.some(([from, to]) => cp >= from && cp <= to);
}

function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - visibleWidth(text)));
}
