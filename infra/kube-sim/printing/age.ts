/**
 * Ages as kubectl shows them: apimachinery's util/duration.HumanDuration, and the printers'
 * translateTimestampSince (kubernetes/kubernetes pkg/printers/internalversion/printers.go), which
 * says `<unknown>` for a missing timestamp.
 */

/** duration.HumanDuration: coarser the older it is (`45s`, `3m2s`, `15m`, `5h3m`, `2d3h`, `1y20d`). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  // Up to a second in the future is "now": clocks of client and server drift.
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** translateTimestampSince: the age of an RFC 3339 timestamp at `now`, `<unknown>` without one. */
export function since(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return '<unknown>';
  return humanDuration(now - at);
}

/** The RFC 3339 form (seconds, UTC) of a timestamp: the `date` cells of RBAC kinds and `Created At`. */
export function rfc3339(timestamp: unknown): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '0001-01-01T00:00:00Z';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return timestamp;
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
