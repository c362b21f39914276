/** The number spellings JSON.parse loses, kept by path for strict decoding (number-literals.ts). */
import { describe, expect, it } from 'vitest';
import { numberLiterals } from '../../../infra/kube-sim/schema/number-literals.ts';

describe('numberLiterals', () => {
  it('keeps only the literals JavaScript would print differently, by duplicate-fields paths', () => {
    const text =
      '{"spec":{"replicas":1e+06,"a":[1.0, 2, {"b": -0}], "c": 1.5, "d": "1e3"}, "e": 1E3, "f": {}}';
    expect([...numberLiterals(text)]).toEqual([
      ['spec.replicas', '1e+06'],
      ['spec.a[0]', '1.0'],
      ['spec.a[2].b', '-0'],
      ['e', '1E3'],
    ]);
  });

  it('finds nothing in a body without respelled numbers', () => {
    expect(numberLiterals('{"a": [1, 2.5, "x"], "b": {"c": true, "d": null}}').size).toBe(0);
  });
});
