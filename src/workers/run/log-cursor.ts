/**
 * Where a run's relay is in its pod's log, so an attempt that takes over after a crash relays each
 * line once: the log is read with `timestamps=true` and the cursor is the time of the last relayed
 * line and how many lines carried exactly that time (lines printed together share one). A resumed
 * follow asks for the lines since that second (`sinceTime` has seconds precision) and drops those
 * before the cursor. Unlike a count of lines, this survives the kubelet rotating the start of a long
 * run's log away. Pure: unit-tested on its own.
 */

export interface RelayCursor {
  /** The pod whose log this is (its uid): a cursor never applies to another pod. */
  pod: string;
  /** Sortable time of the last relayed line (`sortableTime`), or '' before the first. */
  at: string;
  /** Lines relayed with exactly that time. */
  n: number;
  /** Lines relayed in all (for the summary). */
  lines: number;
}

export function startCursor(pod: string): RelayCursor {
  return { pod, at: '', n: 0, lines: 0 };
}

const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

/**
 * A log timestamp as a string that sorts as time does: `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ` in UTC.
 * RFC3339Nano trims trailing zeros (`…:05.1Z` is later than `…:05.09Z`, though it sorts first as
 * text), hence the padding. Undefined for what is not an RFC 3339 time.
 */
export function sortableTime(timestamp: string): string | undefined {
  const match = RFC3339.exec(timestamp);
  if (!match) return undefined;
  const [, whole, fraction = '', zone] = match as unknown as [string, string, string | undefined, string];
  let seconds = whole;
  if (zone !== 'Z') {
    const at = new Date(`${whole}${zone}`);
    if (Number.isNaN(at.getTime())) return undefined;
    seconds = at.toISOString().slice(0, 19);
  }
  return `${seconds}.${fraction.padEnd(9, '0')}Z`;
}

/** The `sinceTime` a resumed follow asks for: the cursor's second (metav1.Time has no fraction). */
export function sinceTimeOf(cursor: RelayCursor): string | undefined {
  return cursor.at ? `${cursor.at.slice(0, 19)}Z` : undefined;
}

/** A `timestamps=true` log line split into its time and its text (as the container printed it). */
export function splitTimestamp(line: string): { at?: string; text: string } {
  const space = line.indexOf(' ');
  const at = space > 0 ? sortableTime(line.slice(0, space)) : undefined;
  return at ? { at, text: line.slice(space + 1) } : { text: line };
}

/**
 * Decides for each line read whether it is new, advancing the cursor. Lines before the cursor were
 * relayed by an earlier attempt; so were the first `n` lines at its time. A line without a
 * timestamp (not from a kubelet) is always new and leaves the cursor where it is.
 */
export class LineFilter {
  private cursor: RelayCursor;
  /** Lines seen at the cursor's time in this read. */
  private seenAtCursor = 0;
  private readonly resumeAt: string;
  private readonly resumeN: number;

  constructor(cursor: RelayCursor) {
    this.cursor = { ...cursor };
    this.resumeAt = cursor.at;
    this.resumeN = cursor.n;
  }

  /** The text to relay, or undefined when an earlier attempt relayed it; `cursor` is then advanced. */
  accept(line: string): string | undefined {
    const { at, text } = splitTimestamp(line);
    if (at === undefined) {
      this.cursor = { ...this.cursor, lines: this.cursor.lines + 1 };
      return text;
    }
    if (at < this.resumeAt) return undefined;
    if (at === this.resumeAt) {
      this.seenAtCursor += 1;
      if (this.seenAtCursor <= this.resumeN) return undefined;
    }
    const n = at === this.cursor.at ? this.cursor.n + 1 : 1;
    this.cursor = { pod: this.cursor.pod, at, n, lines: this.cursor.lines + 1 };
    return text;
  }

  get position(): RelayCursor {
    return { ...this.cursor };
  }
}
