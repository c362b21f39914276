import { describe, expect, it } from 'vitest';
import { humanDuration, rfc3339, since } from '../../../../infra/kube-sim/printing/age.ts';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('humanDuration (apimachinery util/duration.HumanDuration)', () => {
  it.each([
    [-2 * s, '<invalid>'],
    [-500, '0s'],
    [5 * s, '5s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [3 * m + 2 * s, '3m2s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [5 * h + 3 * m, '5h3m'],
    [20 * h, '20h'],
    [2 * d + 3 * h, '2d3h'],
    [3 * d, '3d'],
    [30 * d, '30d'],
    [800 * d, '2y70d'],
    [365 * 9 * d, '9y'],
  ])('%d ms is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });

  it('ages a timestamp, <unknown> without one', () => {
    const now = Date.parse('2026-01-01T00:05:00Z');
    expect(since('2026-01-01T00:00:00Z', now)).toBe('5m');
    expect(since(undefined, now)).toBe('<unknown>');
    expect(rfc3339('2026-01-01T00:00:00.000Z')).toBe('2026-01-01T00:00:00Z');
  });
});
