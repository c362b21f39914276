/** Printing for the CLI: aligned tables for people, JSON for scripts. */

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

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

export function ago(ms: number | undefined, now = Date.now()): string {
  if (!ms) return '-';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}
