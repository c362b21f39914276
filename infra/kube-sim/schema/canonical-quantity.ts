/**
 * resource.Quantity as the apiserver decodes and re-encodes it (k8s.io/apimachinery
 * pkg/api/resource/quantity.go: ParseQuantity, parseQuantityString, CanonicalizeBytes, and
 * suffix.go's interpret/constructBytes). A stored quantity is always in canonical form, so
 * `0.5` reads back as `500m`, `1024Mi` as `1Gi`, `1000m` as `1` and `1e3` stays `1e3`.
 *
 * Exact decimal arithmetic with BigInt (upstream uses int64 with an inf.Dec fallback): a value is
 * `mantissa × 10^scale`. rules/quantities.ts stays the float reading used to compare values.
 */

/** quantity.go's ErrFormatWrong: the whole text the apiserver answers with. */
export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/** quantity.go's ErrSuffix. */
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

export class QuantityParseError extends Error {
  override name = 'QuantityParseError';
}

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const SUFFIX_CHARS = 'eEinumkKMGTP';
/** Exponents beyond this would make BigInt work unbounded; upstream's inf.Dec copes, nobody means them. */
const MAX_EXPONENT = 4096;
/** quantity.go's maxAllowed: binary quantities are capped at int64's maximum. */
const MAX_ALLOWED = 2n ** 63n - 1n;

interface Parsed {
  negative: boolean;
  num: string;
  denom: string;
  suffix: string;
}

const isDigit = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '9';

/** parseQuantityString: sign, integer digits, optional `.fraction`, then a suffix. */
function split(text: string): Parsed {
  let pos = 0;
  let negative = false;
  if (text[0] === '-' || text[0] === '+') {
    negative = text[0] === '-';
    pos++;
  }
  while (text[pos] === '0') pos++;
  let start = pos;
  while (isDigit(text[pos])) pos++;
  const num = text.slice(start, pos) || '0';
  let denom = '';
  if (text[pos] === '.') {
    pos++;
    start = pos;
    while (isDigit(text[pos])) pos++;
    denom = text.slice(start, pos);
  }
  const suffixStart = pos;
  while (pos < text.length && SUFFIX_CHARS.includes(text[pos]!)) pos++;
  if (text[pos] === '-' || text[pos] === '+') pos++;
  while (isDigit(text[pos])) pos++;
  // Something after the suffix that is neither a suffix letter nor an exponent's digits (`512MB`).
  if (pos < text.length) throw new QuantityParseError(QUANTITY_FORMAT_ERROR);
  return { negative, num, denom, suffix: text.slice(suffixStart) };
}

/** suffix.go's interpret: base, exponent and format of a suffix. */
function interpret(suffix: string): { base: 2 | 10; exponent: number; format: Format } {
  if (suffix in DECIMAL_SUFFIXES)
    return { base: 10, exponent: DECIMAL_SUFFIXES[suffix]!, format: 'DecimalSI' };
  if (suffix in BINARY_SUFFIXES) return { base: 2, exponent: BINARY_SUFFIXES[suffix]!, format: 'BinarySI' };
  if (
    suffix.length > 1 &&
    (suffix[0] === 'e' || suffix[0] === 'E') &&
    /^[+-]?[0-9]+$/.test(suffix.slice(1))
  ) {
    return { base: 10, exponent: Number(suffix.slice(1)), format: 'DecimalExponent' };
  }
  throw new QuantityParseError(QUANTITY_SUFFIX_ERROR);
}

/** The value as an integer, or undefined when it has a fraction. */
function wholeValue(mantissa: bigint, scale: number): bigint | undefined {
  if (scale >= 0) return mantissa * 10n ** BigInt(scale);
  const divisor = 10n ** BigInt(-scale);
  return mantissa % divisor === 0n ? mantissa / divisor : undefined;
}

/** Divides `a` by `b`, rounding away from zero (inf.RoundUp). */
function divideAway(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b === 0n ? q : q + (a < 0n ? -1n : 1n);
}

export interface Quantity {
  /** The value is mantissa × 10^scale. */
  mantissa: bigint;
  scale: number;
  format: Format;
}

/** ParseQuantity: the value (rounded up to nano units) and the format its suffix chose. */
export function parseCanonicalQuantity(text: string): Quantity {
  if (text.length === 0) throw new QuantityParseError(QUANTITY_FORMAT_ERROR);
  if (text === '0') return { mantissa: 0n, scale: 0, format: 'DecimalSI' };
  const { negative, num, denom, suffix } = split(text);
  const { base, exponent, format: suffixFormat } = interpret(suffix);
  let format = suffixFormat;
  if (Math.abs(exponent) > MAX_EXPONENT) throw new QuantityParseError(QUANTITY_FORMAT_ERROR);
  let mantissa = BigInt(num + denom);
  let scale = -denom.length;
  if (base === 10) scale += exponent;
  else mantissa *= 2n ** BigInt(exponent);
  // Values finer than a nano-unit round up to one (`you asked for some, you get some`).
  if (mantissa !== 0n && scale < -9) {
    mantissa = divideAway(mantissa, 10n ** BigInt(-9 - scale));
    scale = -9;
  }
  if (format === 'BinarySI') {
    const whole = wholeValue(mantissa, scale);
    if (whole !== undefined && whole > MAX_ALLOWED) {
      mantissa = MAX_ALLOWED;
      scale = 0;
    }
    // Below one, binary suffixes say nothing useful: decimal SI avoids rounding.
    if (!(whole !== undefined && whole >= 1n) && mantissa !== 0n) format = 'DecimalSI';
  }
  return { mantissa: negative ? -mantissa : mantissa, scale, format };
}

/** AsCanonicalBytes: trailing zeros folded into the exponent, the exponent a multiple of three. */
function decimalParts(q: Quantity): { digits: bigint; exponent: number } {
  let digits = q.mantissa;
  let exponent = q.scale;
  while (digits !== 0n && digits % 10n === 0n) {
    digits /= 10n;
    exponent++;
  }
  const rest = ((exponent % 3) + 3) % 3;
  digits *= 10n ** BigInt(rest);
  exponent -= rest;
  return { digits, exponent };
}

/** Quantity.String(): CanonicalizeBytes' number and suffix. */
export function formatQuantity(q: Quantity): string {
  if (q.mantissa === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const whole = wholeValue(q.mantissa, q.scale);
    const abs = whole !== undefined && whole < 0n ? -whole : whole;
    // Small or fractional binary values print in decimal SI, so nothing is rounded away.
    if (abs === undefined || abs < 1024n) format = 'DecimalSI';
    else {
      let digits = whole!;
      let power = 0;
      while (digits % 1024n === 0n && power < 6) {
        digits /= 1024n;
        power++;
      }
      const suffix = Object.keys(BINARY_SUFFIXES).find((s) => BINARY_SUFFIXES[s] === power * 10) ?? '';
      return `${digits}${suffix}`;
    }
  }
  const { digits, exponent } = decimalParts(q);
  if (format === 'DecimalExponent') return exponent === 0 ? `${digits}` : `${digits}e${exponent}`;
  const suffix = Object.keys(DECIMAL_SUFFIXES).find((s) => DECIMAL_SUFFIXES[s] === exponent);
  // Beyond exa, decimal SI has no suffix: the mantissa grows instead.
  if (suffix === undefined) return `${digits * 10n ** BigInt(exponent - 18)}E`;
  return `${digits}${suffix}`;
}

/**
 * Quantity.UnmarshalJSON then String(): what a JSON value (a string, or a bare number) decodes to,
 * or a QuantityParseError with upstream's text. Blanks around the text are trimmed, as upstream.
 */
export function canonicalQuantity(value: string | number): string {
  const text = typeof value === 'number' ? numberText(value) : value.trim();
  return formatQuantity(parseCanonicalQuantity(text));
}

/** A JSON number as Go's decoder hands its text to UnmarshalJSON (no `+` in exponents). */
function numberText(n: number): string {
  return String(n).replace('e+', 'e');
}
