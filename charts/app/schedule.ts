/**
 * Cron schedules as a CronJob accepts them (robfig/cron's standard parser): five fields or a
 * descriptor. Checked by shape only; the job schema (src/jobs) parses them fully before a deploy
 * is enqueued. A time zone inside the schedule is refused because `timeZone` is set to Etc/UTC and
 * the API server refuses both together.
 */

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const EVERY = /^@every\s+(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;
const NUMERIC_FIELD = /^[0-9*?,/-]+$/;
const NAMED_FIELD =
  /^([0-9*?,/-]|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT)+$/i;

/** Why `schedule` is not a CronJob schedule, or undefined. */
export function scheduleProblem(schedule: string): string | undefined {
  const text = schedule.trim();
  if (DESCRIPTORS.includes(text) || EVERY.test(text)) return undefined;
  if (/^(CRON_)?TZ=/.test(text)) return 'must not set a time zone (cron tasks run in Etc/UTC)';
  const fields = text.split(/\s+/);
  if (fields.length !== 5) {
    return `must have 5 fields (minute hour day-of-month month day-of-week) or be one of ${DESCRIPTORS.join(', ')}; got ${text ? fields.length : 0}`;
  }
  const bad = fields.findIndex((field, i) => !(i >= 3 ? NAMED_FIELD : NUMERIC_FIELD).test(field));
  if (bad >= 0) return `field ${bad + 1} ("${fields[bad]}") has characters a CronJob does not accept`;
  return undefined;
}
