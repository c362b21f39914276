/**
 * Cron schedules as a Kubernetes CronJob accepts them (`spec.schedule`, parsed by
 * github.com/robfig/cron/v3 ParseStandard): five fields (minute hour day-of-month month
 * day-of-week) or a descriptor such as @daily. Refused although some parser would take them:
 * seconds fields, `L`, `W`, `#` (robfig/cron refuses them), `TZ=`/`CRON_TZ=` (longshore sets
 * `timeZone: Etc/UTC`, and the API server refuses a schedule with a zone beside it) and `@every`
 * (an interval from when the controller started, not a time of day, which Dokku does not offer).
 * The fields' values (`61`, `5-2`, a zero step) are checked as robfig/cron's getRange checks them
 * (parser.go), with its messages.
 */
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
  for (const [i, field] of fields.entries()) {
    const problem = fieldProblem(field, FIELDS[i]!);
    if (problem) return `is not a valid cron expression: ${problem}`;
  }
  return undefined;
}

interface FieldBounds {
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** robfig/cron's bounds (parser.go: minutes, hours, dom, months, dow); names start at `min`. */
const FIELDS: readonly FieldBounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: WEEKDAYS },
];

/** robfig/cron's getRange, for each comma-separated part of a field: its error text, or undefined. */
function fieldProblem(field: string, bounds: FieldBounds): string | undefined {
  for (const part of field.split(',')) {
    const [range = '', step, ...moreSlashes] = part.split('/');
    if (moreSlashes.length > 0) return `too many slashes: ${part}`;
    const [low = '', high, ...moreHyphens] = range.split('-');
    let start: number;
    let end: number;
    if (low === '*' || low === '?') {
      // As robfig/cron: a star is the whole range, whatever follows a hyphen after it.
      start = bounds.min;
      end = bounds.max;
    } else {
      if (moreHyphens.length > 0) return `too many hyphens: ${part}`;
      const first = fieldValue(low, bounds);
      if (typeof first === 'string') return first;
      start = first;
      if (high === undefined) end = step === undefined ? start : bounds.max;
      else {
        const last = fieldValue(high, bounds);
        if (typeof last === 'string') return last;
        end = last;
      }
    }
    if (step !== undefined) {
      const n = /^\d+$/.test(step) ? Number(step) : Number.NaN;
      if (Number.isNaN(n))
        return `failed to parse int from ${step}: strconv.Atoi: parsing "${step}": invalid syntax`;
      if (n === 0) return `step of range should be a positive number: ${part}`;
    }
    if (start < bounds.min) return `beginning of range (${start}) below minimum (${bounds.min}): ${part}`;
    if (end > bounds.max) return `end of range (${end}) above maximum (${bounds.max}): ${part}`;
    if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${part}`;
  }
  return undefined;
}

/** A field value: a number, or a month or weekday name (any case); robfig/cron's parseIntOrName. */
function fieldValue(text: string, bounds: FieldBounds): number | string {
  const named = bounds.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return bounds.min + named;
  if (!/^\d+$/.test(text))
    return `failed to parse int from ${text}: strconv.Atoi: parsing "${text}": invalid syntax`;
  return Number(text);
}

/** A schedule, trimmed. */
export const cronSchedule = z
  .string()
  .trim()
  .superRefine((schedule, ctx) => {
    const problem = cronScheduleProblem(schedule);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
