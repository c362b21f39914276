/**
 * The schedule parser CronJob validation uses: github.com/robfig/cron/v3 ParseStandard (five
 * fields plus @descriptors and @every), with its exact error strings, and the Go time helpers
 * those strings embed (time.ParseDuration, time.LoadLocation, strconv.Atoi).
 */

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTH_NAMES: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const DOW_NAMES: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

/** second, minute, hour, day of month, month, day of week: the seconds field is always "0". */
const FIELD_BOUNDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTH_NAMES },
  { min: 0, max: 6, names: DOW_NAMES },
];

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/** strconv.Atoi with its error text. */
function atoi(text: string): { value: number } | { error: string } {
  if (!/^[+-]?[0-9]+$/.test(text))
    return { error: `strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax` };
  const value = Number(text);
  if (!Number.isSafeInteger(value) || Math.abs(value) > 2 ** 63 - 1) {
    return { error: `strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range` };
  }
  return { value };
}

/** mustParseInt. */
function parseUint(expr: string): number | string {
  const parsed = atoi(expr);
  if ('error' in parsed) return `failed to parse int from ${expr}: ${parsed.error}`;
  if (parsed.value < 0) return `negative number (${parsed.value}) not allowed: ${expr}`;
  return parsed.value;
}

function parseIntOrName(expr: string, names: Record<string, number> | undefined): number | string {
  const named = names?.[expr.toLowerCase()];
  return named ?? parseUint(expr);
}

/** getRange: `number | number "-" number [ "/" number ]`, or `*`/`?` with an optional step. */
function rangeError(expr: string, r: Bounds): string | undefined {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    const low = parseIntOrName(lowAndHigh[0] ?? '', r.names);
    if (typeof low === 'string') return low;
    start = low;
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) {
      const high = parseIntOrName(lowAndHigh[1] ?? '', r.names);
      if (typeof high === 'string') return high;
      end = high;
    } else return `too many hyphens: ${expr}`;
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    const parsed = parseUint(rangeAndStep[1] ?? '');
    if (typeof parsed === 'string') return parsed;
    step = parsed;
    if (lowAndHigh.length === 1) end = r.max;
  } else if (rangeAndStep.length > 2) return `too many slashes: ${expr}`;
  if (start < r.min) return `beginning of range (${start}) below minimum (${r.min}): ${expr}`;
  if (end > r.max) return `end of range (${end}) above maximum (${r.max}): ${expr}`;
  if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`;
  if (step === 0) return `step of range should be a positive number: ${expr}`;
  return undefined;
}

/** getField: a comma-separated list of ranges. */
function fieldError(field: string, r: Bounds): string | undefined {
  for (const expr of field.split(',').filter((e) => e.length > 0)) {
    const error = rangeError(expr, r);
    if (error) return error;
  }
  return undefined;
}

const UNITS = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h']);

/** time.ParseDuration's error for an invalid duration, or undefined when it parses. */
export function durationError(text: string): string | undefined {
  const quoted = JSON.stringify(text);
  let s = text.replace(/^[-+]/, '');
  if (s === '0') return undefined;
  if (s === '') return `time: invalid duration ${quoted}`;
  while (s !== '') {
    const number = /^([0-9]*)(\.[0-9]*)?/.exec(s);
    const digits = number?.[0] ?? '';
    if (digits === '' || digits === '.') return `time: invalid duration ${quoted}`;
    s = s.slice(digits.length);
    const unit = /^[^0-9.]*/.exec(s)?.[0] ?? '';
    if (unit === '') return `time: missing unit in duration ${quoted}`;
    if (!UNITS.has(unit)) return `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`;
    s = s.slice(unit.length);
  }
  return undefined;
}

/** time.LoadLocation's error, or undefined for a zone the tz database knows. */
export function locationError(name: string): string | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return undefined;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    // ICU matches case-insensitively; Go opens a file named exactly after the zone.
    if (resolved.toLowerCase() === name.toLowerCase() && resolved !== name)
      return `unknown time zone ${name}`;
    return undefined;
  } catch {
    return `unknown time zone ${name}`;
  }
}

/** cron.ParseStandard: undefined when the spec parses, else the parser's error text. */
export function cronScheduleError(spec: string): string | undefined {
  if (spec.length === 0) return 'empty spec string';
  let rest = spec;
  if (rest.startsWith('TZ=') || rest.startsWith('CRON_TZ=')) {
    const space = rest.indexOf(' ');
    const eq = rest.indexOf('=');
    const zone = space < 0 ? rest.slice(eq + 1) : rest.slice(eq + 1, space);
    const error = locationError(zone);
    if (error) return `provided bad location ${zone}: ${error}`;
    rest = space < 0 ? '' : rest.slice(space).trim();
  }
  if (rest.startsWith('@')) {
    if (DESCRIPTORS.includes(rest)) return undefined;
    if (rest.startsWith('@every ')) {
      const error = durationError(rest.slice('@every '.length));
      return error ? `failed to parse duration ${rest}: ${error}` : undefined;
    }
    return `unrecognized descriptor: ${rest}`;
  }
  const fields = rest.split(/\s+/).filter((f) => f.length > 0);
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
  const all = ['0', ...fields];
  for (const [i, r] of FIELD_BOUNDS.entries()) {
    const error = fieldError(all[i] ?? '', r);
    if (error) return error;
  }
  return undefined;
}
