/**
 * resource.Quantity decoding and canonical form (apimachinery pkg/api/resource/quantity.go:
 * ParseQuantity, CanonicalizeBytes), and the Go decoders' other leaf errors: base64 for []byte,
 * time.Parse for metav1.Time.
 */
import { describe, expect, it } from 'vitest';
import {
  canonicalQuantity,
  QUANTITY_FORMAT_ERROR,
  QUANTITY_SUFFIX_ERROR,
} from '../../../infra/kube-sim/schema/canonical-quantity.ts';
import { base64Error } from '../../../infra/kube-sim/schema/go-base64.ts';
import { goTimeError } from '../../../infra/kube-sim/schema/go-time.ts';

describe('canonicalQuantity', () => {
  it.each([
    // decimal SI: trailing zeros fold into the exponent, which becomes a multiple of three
    ['0.5', '500m'],
    ['1000m', '1'],
    ['1000', '1k'],
    ['1.5', '1500m'],
    ['0.1m', '100u'],
    ['100m', '100m'],
    ['.5', '500m'],
    ['1.', '1'],
    ['+1', '1'],
    ['-1.5', '-1500m'],
    ['  2  ', '2'],
    // finer than nano rounds up to one nano-unit
    ['0.0000000001', '1n'],
    // binary SI: whole multiples of 1024 keep a binary suffix
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['1.5Ki', '1536'],
    ['0.5Ki', '512'],
    ['-1024Mi', '-1Gi'],
    ['16Ei', '9223372036854775807'],
    // decimal exponent stays in that form
    ['1e3', '1e3'],
    ['1E3', '1e3'],
    ['1.0e3', '1e3'],
    ['100e3', '100e3'],
    ['1.5e3', '1500'],
    ['1e-3', '1e-3'],
    // zero is always "0"
    ['0Gi', '0'],
    ['-0', '0'],
    ['0', '0'],
  ])('%s → %s', (text, canonical) => {
    expect(canonicalQuantity(text)).toBe(canonical);
  });

  it('reads a JSON number as its text', () => {
    expect(canonicalQuantity(0.5)).toBe('500m');
    expect(canonicalQuantity(2)).toBe('2');
    expect(canonicalQuantity(2147483648)).toBe('2147483648');
  });

  it.each([['512MB'], ['abc'], [''], ['1.5.5'], ['true'], ['1Gi!']])(
    'refuses %j with the regexp message',
    (text) => {
      expect(() => canonicalQuantity(text)).toThrow(QUANTITY_FORMAT_ERROR);
    },
  );

  it.each([['1K'], ['1e'], ['1ki'], ['1Mm']])('refuses the suffix of %j', (text) => {
    expect(() => canonicalQuantity(text)).toThrow(QUANTITY_SUFFIX_ERROR);
  });
});

describe('base64Error (Go StdEncoding)', () => {
  it.each([
    ['YQ==', undefined],
    ['YWJj', undefined],
    ['YW\nJj', undefined],
    ['', undefined],
    ['not base64', 'illegal base64 data at input byte 3'],
    ['YQ', 'illegal base64 data at input byte 0'],
    ['YWJ', 'illegal base64 data at input byte 0'],
    ['YQ=', 'illegal base64 data at input byte 3'],
    ['YQ==YQ==', 'illegal base64 data at input byte 4'],
    ['=', 'illegal base64 data at input byte 0'],
  ])('%j', (text, error) => {
    expect(base64Error(text)).toBe(error);
  });
});

describe('goTimeError (time.Parse RFC3339)', () => {
  const layout = '"2006-01-02T15:04:05Z07:00"';
  it.each([['2024-05-01T10:00:00Z'], ['2024-05-01T10:00:00.123456Z'], ['2024-05-01T10:00:00+02:00']])(
    'accepts %s',
    (t) => {
      expect(goTimeError(t)).toBeUndefined();
    },
  );
  it.each([
    ['yesterday', `parsing time "yesterday" as ${layout}: cannot parse "yesterday" as "2006"`],
    [
      '2024-5-01T10:00:00Z',
      `parsing time "2024-5-01T10:00:00Z" as ${layout}: cannot parse "5-01T10:00:00Z" as "01"`,
    ],
    [
      '2024-05-01 10:00:00Z',
      `parsing time "2024-05-01 10:00:00Z" as ${layout}: cannot parse " 10:00:00Z" as "T"`,
    ],
    ['2024-05-01T10:00:00', `parsing time "2024-05-01T10:00:00" as ${layout}: cannot parse "" as "Z07:00"`],
    ['2024-13-01T10:00:00Z', 'parsing time "2024-13-01T10:00:00Z": month out of range'],
    ['2024-02-30T10:00:00Z', 'parsing time "2024-02-30T10:00:00Z": day out of range'],
    ['2024-05-01T10:00:00Zjunk', 'parsing time "2024-05-01T10:00:00Zjunk": extra text: "junk"'],
  ])('%s', (t, error) => {
    expect(goTimeError(t)).toBe(error);
  });
});
