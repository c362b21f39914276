/**
 * Cron schedules as a Kubernetes CronJob accepts them (`spec.schedule`, parsed by
 * github.com/robfig/cron/v3 ParseStandard): five fields (minute hour day-of-month month
 * day-of-week) or a descriptor such as @daily. Refused although some parser would take them:
 * seconds fields, `L`, `W`, `#` (robfig/cron refuses them), `TZ=`/`CRON_TZ=` (longshore sets
 * `timeZone: Etc/UTC`, and the API server refuses a schedule with a zone beside it) and `@every`
 * (an interval from when the controller started, not a time of day, which Dokku does not offer).
 * The fields' values (`61`, `JAN-XYZ`) are checked by cron-parser.
 */
import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';

export const CRON_DESCRIPTORS = [
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
] as const;

const NUMERIC_FIELD = /^[0-9*?,/-]+$/;
const NAMED_FIELD =
  /^([0-9*?,/-]|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT)+$/i;

/** Why `schedule` (surrounding blanks ignored) is not a CronJob schedule, or undefined. */
export function cronScheduleProblem(schedule: string): string | undefined {
  const text = schedule.trim();
  if ((CRON_DESCRIPTORS as readonly string[]).includes(text)) return undefined;
  if (/^(CRON_)?TZ=/.test(text)) return 'must not set a time zone (cron tasks run in Etc/UTC)';
  const fields = text === '' ? [] : text.split(/\s+/);
  if (fields.length !== 5) {
    return `must have 5 fields (minute hour day-of-month month day-of-week) or be one of ${CRON_DESCRIPTORS.join(', ')}; got ${fields.length}`;
  }
  // Months and weekdays (fields 4 and 5) may be named.
  const bad = fields.findIndex((field, i) => !(i >= 3 ? NAMED_FIELD : NUMERIC_FIELD).test(field));
  if (bad >= 0) return `field ${bad + 1} ("${fields[bad]}") has characters a CronJob does not accept`;
  try {
    // robfig/cron reads `?` as `*` in every field: parse exactly that schedule.
    CronExpressionParser.parse(text.replaceAll('?', '*'));
  } catch (err) {
    return `is not a valid cron expression: ${(err as Error).message}`;
  }
  return undefined;
}

/** A schedule, trimmed. */
export const cronSchedule = z
  .string()
  .trim()
  .superRefine((schedule, ctx) => {
    const problem = cronScheduleProblem(schedule);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
