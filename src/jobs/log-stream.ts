/**
 * The Redis stream that carries a `logs` job's lines from the worker to the CLI
 * (`{longshore}:logs:{jobId}`, docs/apps.md "logs"). Not the job's own log: BullMQ keeps 1,000
 * lines of that, polled, while a follow runs for hours and the reader wants each line as it comes
 * (XREAD BLOCK). Entries are `p` (the `{process}.{n}` prefix) and `l` (the line); the last entry of
 * a finished job is `end` (why it ended), after which the reader stops.
 */

/** Entries kept (XADD MAXLEN ~): a reader that falls this far behind misses the oldest lines. */
export const LOG_STREAM_MAXLEN = 10_000;
/**
 * How long the stream outlives its last write. Its lines are the pods' own (the cluster still has
 * them), and the stream only exists to carry them to a reader, so it need not live as long as the
 * job record (7 days).
 */
export const LOG_STREAM_TTL_SECONDS = 3600;
/** A longer line is cut here (with a marker), so one runaway line cannot fill Redis. */
export const LOG_LINE_MAX = 8192;
/** The CLI refreshes the reader heartbeat this often while it follows... */
export const LOG_READER_REFRESH_MS = 2_000;
/** ...and the worker stops following once the heartbeat is older than this (the key's TTL). */
export const LOG_READER_TIMEOUT_MS = 15_000;
/** Longest XREAD BLOCK of the reader, so it also notices a job that failed without an `end`. */
export const LOG_READ_BLOCK_MS = 1_000;

export type LogEntry = { kind: 'line'; prefix: string; line: string } | { kind: 'end'; reason: string };

/** XADD field list of an entry. */
export function logEntryFields(entry: LogEntry): string[] {
  if (entry.kind === 'end') return ['end', entry.reason];
  const line = entry.line.length > LOG_LINE_MAX ? `${entry.line.slice(0, LOG_LINE_MAX)} …(cut)` : entry.line;
  return ['p', entry.prefix, 'l', line];
}

/** An entry from the flat field list XREAD returns; undefined for one this version does not know. */
export function parseLogEntry(fields: string[]): LogEntry | undefined {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
  const end = map.get('end');
  if (end !== undefined) return { kind: 'end', reason: end };
  const line = map.get('l');
  if (line === undefined) return undefined;
  return { kind: 'line', prefix: map.get('p') ?? '', line };
}

/** How the CLI prints a line, as Dokku does: `web.1 | listening on :5000`. */
export function formatLogLine(prefix: string, line: string): string {
  return `${prefix} | ${line}`;
}
