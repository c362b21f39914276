/**
 * A CronJob's schedule as the controller reads it: cron.ParseStandard of formatSchedule's text
 * (pkg/controller/cronjob/utils.go — `TZ=<spec.timeZone> ` in front of spec.schedule), with
 * robfig/cron's Next: the first activation strictly after the given time, at whole seconds.
 * Five fields and the @descriptors go through cron-parser (the dependency the rules use), in the
 * schedule's zone; `@every <duration>` is robfig's ConstantDelaySchedule; a `TZ=`/`CRON_TZ=`
 * prefix (objects from before spec.timeZone) names the zone as it does for robfig.
 */
import { CronExpressionParser } from 'cron-parser';

export interface CronSchedule {
  /** The first activation strictly after `after`. */
  next(after: Date): Date;
  /** The latest activation t with after < t ≤ now, or undefined. */
  latest(after: Date, now: Date): Date | undefined;
}

/** The schedule cannot be parsed (upstream's UnparseableSchedule / UnknownTimeZone events). */
export class UnparseableScheduleError extends Error {
  constructor(
    readonly reason: 'UnparseableSchedule' | 'UnknownTimeZone',
    message: string,
  ) {
    super(message);
    this.name = 'UnparseableScheduleError';
  }
}

const GO_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1e3,
  m: 6e4,
  h: 36e5,
};

/** time.ParseDuration's value in ms, or undefined when it is not a Go duration. */
function goDurationMs(text: string): number | undefined {
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(text);
  if (!m) return text === '0' ? 0 : undefined;
  let total = 0;
  for (const [, num, unit] of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g))
    total += Number(num) * GO_UNITS[unit!]!;
  return m[1] === '-' ? -total : total;
}

function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The latest instant a Date holds: "no next activation". */
const NEVER: CronSchedule = { next: () => new Date(8.64e15), latest: () => undefined };

export function parseCronSchedule(schedule: string, timeZone: string | undefined): CronSchedule {
  let text = schedule.trim();
  let zone = timeZone || 'UTC';
  const prefix = /^(?:CRON_)?TZ=(\S+)\s+/.exec(text);
  if (prefix) {
    zone = prefix[1]!;
    text = text.slice(prefix[0].length).trim();
  }
  if (!knownZone(zone))
    // time.LoadLocation's error text.
    throw new UnparseableScheduleError('UnknownTimeZone', `unknown time zone ${zone}`);
  if (text.startsWith('@every ')) {
    const ms = goDurationMs(text.slice('@every '.length).trim());
    if (ms === undefined)
      throw new UnparseableScheduleError('UnparseableSchedule', `failed to parse duration ${text}`);
    // ConstantDelaySchedule: at least a second, whole seconds, from the given time's whole second.
    const delay = Math.max(1000, Math.floor(ms / 1000) * 1000);
    const next = (after: Date) => new Date(Math.floor(after.getTime() / 1000) * 1000 + delay);
    return {
      next,
      latest: (after, now) => {
        const first = next(after).getTime();
        if (first > now.getTime()) return undefined;
        return new Date(first + Math.floor((now.getTime() - first) / delay) * delay);
      },
    };
  }
  // robfig reads `?` as `*`.
  const expression = text.replaceAll('?', '*');
  try {
    CronExpressionParser.parse(expression, { tz: zone });
  } catch (err) {
    // A day no month has (`0 0 30 2 *`): robfig accepts it and its Next finds nothing (zero time).
    if (/Invalid explicit day of month/.test((err as Error).message)) return NEVER;
    throw new UnparseableScheduleError('UnparseableSchedule', (err as Error).message);
  }
  return {
    next: (after) => CronExpressionParser.parse(expression, { currentDate: after, tz: zone }).next().toDate(),
    latest: (after, now) => {
      // prev() is strictly before its date; activations fall on whole seconds.
      const at = CronExpressionParser.parse(expression, {
        currentDate: new Date(now.getTime() + 1),
        tz: zone,
      })
        .prev()
        .toDate();
      return at.getTime() > after.getTime() ? at : undefined;
    },
  };
}
