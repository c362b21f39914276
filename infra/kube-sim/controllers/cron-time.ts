/**
 * Go's `t.In(loc).Format(time.RFC3339)` for an IANA time zone name, as the CronJob controller
 * writes the scheduled-timestamp annotation: local wall time with its offset (`+05:30`), or `Z`
 * when the offset is zero. No zone (time.LoadLocation("")) is UTC.
 */
import { timestamp } from '../api/metadata.ts';

export function rfc3339InZone(date: Date, timeZone: string | undefined): string {
  if (!timeZone) return timestamp(date);
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    }).formatToParts(date);
  } catch {
    // Validation accepts only zones Go knows; one Node does not know is written in UTC.
    return timestamp(date);
  }
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  // longOffset reads `GMT+05:30`, or `GMT`/`GMT+00:00` at offset zero, which Go writes as `Z`.
  const raw = part('timeZoneName').replace(/^GMT/, '');
  const offset = raw === '' || /^[+-]00:00$/.test(raw) ? 'Z' : raw;
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}${offset}`;
}
