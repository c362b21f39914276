import { describe, expect, it } from 'vitest';
import {
  ANNOTATIONS_MAX_BYTES,
  isLabelValue,
  LABEL_KEY,
  LABEL_VALUE_MESSAGE,
  qualifiedNameProblem,
  userAnnotations,
  userLabels,
} from '../../../rules/labels.ts';

const messages = (
  schema: { safeParse(v: unknown): { error?: { issues: { message: string; path: PropertyKey[] }[] } } },
  v: unknown,
) => schema.safeParse(v).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

describe('qualified names (label and annotation keys)', () => {
  it.each([
    ['team', undefined],
    ['Team_1.x', undefined],
    ['example.com/team', undefined],
    ['a'.repeat(63), undefined],
    [`${'a'.repeat(253)}/x`, undefined],
    ['a'.repeat(64), 'the name must be at most 63'],
    ['-team', 'the name must be'],
    ['team-', 'the name must be'],
    ['', 'the name must be'],
    ['example.com/', 'the name must be'],
    ['Example.com/team', 'the prefix before "/" must be a DNS-1123 subdomain'],
    [`${'a'.repeat(254)}/x`, 'the prefix before "/" must be a DNS-1123 subdomain'],
    ['/team', 'the prefix before "/" must be a DNS-1123 subdomain'],
  ])('%j', (key, problem) => {
    const found = qualifiedNameProblem(key);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
    // The whole-key pattern (kube-sim's selectors) agrees wherever lengths are not the question.
    if (key.length <= 63) expect(LABEL_KEY.test(key)).toBe(problem === undefined);
  });
});

describe('label values', () => {
  it.each([
    ['', true],
    ['v1', true],
    ['a.b_c-d', true],
    ['a'.repeat(63), true],
    ['a'.repeat(64), false],
    ['-a', false],
    ['a_', false],
    ['a b', false],
    ['a/b', false],
  ])('%j → %s', (value, valid) => expect(isLabelValue(value)).toBe(valid));
});

describe('userLabels and userAnnotations', () => {
  it('reports every bad entry under its key, with one message per rule', () => {
    expect(messages(userLabels, { ok: 'fine', '-bad': 'x', good: 'bad value' })).toEqual([
      '-bad: key "-bad": the name must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
      `good: ${LABEL_VALUE_MESSAGE}`,
    ]);
  });

  it('annotations take any value but count bytes, keys included', () => {
    expect(messages(userAnnotations, { note: 'any value at all: ünïcode, spaces / slashes' })).toEqual([]);
    const justFits = { k: 'x'.repeat(ANNOTATIONS_MAX_BYTES - 1) };
    expect(messages(userAnnotations, justFits)).toEqual([]);
    const over = { k: 'x'.repeat(ANNOTATIONS_MAX_BYTES) };
    expect(messages(userAnnotations, over)).toEqual([
      ": are 262,145 bytes in all; an object's annotations may total at most 262,144",
    ]);
  });
});
