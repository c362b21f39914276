import { describe, expect, it } from 'vitest';
import {
  byteQuantity,
  compareQuantities,
  cpuQuantity,
  isQuantity,
  parseQuantity,
  QUANTITY_MESSAGE,
  quantityValue,
  resourceQuantity,
  sameQuantity,
} from '../../../rules/quantities.ts';

const messages = (
  schema: { safeParse(v: unknown): { error?: { issues: { message: string }[] } } },
  v: unknown,
) => schema.safeParse(v).error?.issues.map((i) => i.message) ?? [];

describe('resource.Quantity', () => {
  it.each([
    ['0', 0],
    ['1', 1],
    ['1.5', 1.5],
    ['1.', 1],
    ['.5', 0.5],
    ['+2', 2],
    ['-2', -2],
    ['500m', 0.5],
    ['100n', 1e-7],
    ['3u', 3e-6],
    ['2k', 2000],
    ['1M', 1e6],
    ['1G', 1e9],
    ['1T', 1e12],
    ['1P', 1e15],
    ['1E', 1e18],
    ['1Ki', 1024],
    ['512Mi', 512 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['1Ti', 2 ** 40],
    ['1Pi', 2 ** 50],
    ['1Ei', 2 ** 60],
    ['1e3', 1000],
    ['1E3', 1000],
    ['25e-2', 0.25],
    ['1.5e+1', 15],
  ])('%s = %d', (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value, 12);
    expect(isQuantity(text)).toBe(true);
  });

  it.each([
    '',
    'lots',
    '1 Gi',
    ' 1Gi',
    '1Gi ',
    '1KI',
    '1K',
    '1gi',
    '1mi',
    'Gi',
    '.',
    '1.2.3',
    '1e',
    '1e1.5',
    '1Gie3',
    '--1',
  ])('refuses %j', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
    expect(isQuantity(text)).toBe(false);
  });

  it('reads JSON numbers as quantities and nothing else', () => {
    expect(quantityValue(3)).toBe(3);
    expect(quantityValue('500m')).toBe(0.5);
    expect(quantityValue(null)).toBeUndefined();
    expect(quantityValue({})).toBeUndefined();
  });

  it.each([
    ['0.5', '500m', 0],
    ['1Gi', '1024Mi', 0],
    ['1000m', 1, 0],
    ['0.1', '100m', 0],
    ['2', '500m', 1],
    ['100m', '0.5', -1],
    ['1G', '1Gi', -1],
  ])('compares %j with %j', (a, b, order) => {
    expect(compareQuantities(a, b)).toBe(order);
    expect(sameQuantity(a, b)).toBe(order === 0);
  });

  it('does not compare what it cannot read', () => {
    expect(compareQuantities('lots', '1')).toBeUndefined();
    expect(sameQuantity('lots', 'lots')).toBe(false);
  });
});

describe('quantities a person gives', () => {
  it.each([
    ['250m', []],
    ['1.5', []],
    ['0', []],
    ['+1', []],
    ['1e3', []],
    ['-1', [QUANTITY_MESSAGE]],
    ['lots', [QUANTITY_MESSAGE]],
  ])('resource quantity %j', (text, expected) => expect(messages(resourceQuantity, text)).toEqual(expected));

  it.each([
    ['1Gi', []],
    ['512Mi', []],
    ['1.5G', []],
    ['10', []],
    ['0', ['must be greater than zero']],
    ['0.0Gi', ['must be greater than zero']],
    ['1 Gi', ['must be a Kubernetes quantity such as 512Mi or 10Gi']],
    ['lots', ['must be a Kubernetes quantity such as 512Mi or 10Gi']],
    ['1e3', ['must be a Kubernetes quantity such as 512Mi or 10Gi']],
    ['-1Gi', ['must be a Kubernetes quantity such as 512Mi or 10Gi', 'must be greater than zero']],
  ])('size %j', (text, expected) => expect(messages(byteQuantity, text)).toEqual(expected));

  it.each([
    ['250m', []],
    ['1.5', []],
    ['0.001', []],
    ['2', []],
    ['0m', ['must be greater than zero']],
    ['0.0001', ['must be a CPU quantity such as 250m or 1.5']],
    ['1.5m', ['must be a CPU quantity such as 250m or 1.5']],
    ['1k', ['must be a CPU quantity such as 250m or 1.5']],
  ])('CPU %j', (text, expected) => expect(messages(cpuQuantity, text)).toEqual(expected));
});
