import { describe, expect, it } from 'vitest';
import { appName, PROCESS_TYPE_MAX, processTypeProblem, storageName } from '../../../rules/app-names.ts';
import { dns1123Label, dns1123Subdomain } from '../../../rules/name-schemas.ts';
import {
  DNS1035_LABEL_MESSAGE,
  DNS1123_LABEL_MESSAGE,
  DNS1123_SUBDOMAIN_MESSAGE,
  dns1123LabelProblem,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
} from '../../../rules/names.ts';

const messages = (
  schema: { safeParse(v: unknown): { error?: { issues: { message: string }[] } } },
  v: unknown,
) => schema.safeParse(v).error?.issues.map((i) => i.message) ?? [];

describe('DNS-1123 label', () => {
  it.each([
    ['a', true],
    ['0', true],
    ['my-name', true],
    ['123-abc', true],
    ['a'.repeat(63), true],
    ['a'.repeat(64), false],
    ['', false],
    ['-a', false],
    ['a-', false],
    ['A', false],
    ['a.b', false],
    ['a_b', false],
    ['ü', false],
  ])('%j → %s', (name, valid) => expect(isDNS1123Label(name)).toBe(valid));

  it('takes a shorter maximum', () => {
    expect(isDNS1123Label('a'.repeat(45), 45)).toBe(true);
    expect(isDNS1123Label('a'.repeat(46), 45)).toBe(false);
  });

  it.each([
    ['web', undefined],
    ['Web', DNS1123_LABEL_MESSAGE],
    ['a'.repeat(64), 'must be at most 63 characters'],
  ])('problem of %j', (name, problem) => expect(dns1123LabelProblem(name)).toBe(problem));

  it.each([
    ['ns', []],
    ['', ['is required (a namespace)', DNS1123_LABEL_MESSAGE]],
    ['Bad_NS', [DNS1123_LABEL_MESSAGE]],
    ['a'.repeat(64), ['must be at most 63 characters']],
    [1, ['is required (a namespace)']],
  ])('schema messages for %j', (value, expected) =>
    expect(messages(dns1123Label({ required: 'is required (a namespace)' }), value)).toEqual(expected),
  );
});

describe('DNS-1123 subdomain', () => {
  it.each([
    ['example.com', true],
    ['a.b.c', true],
    ['pull-secret-web', true],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`, true], // 253
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`, false], // 254
    ['', false],
    ['a..b', false],
    ['.a', false],
    ['a.', false],
    ['a.-b', false],
    ['Example.com', false],
  ])('%j → %s', (name, valid) => expect(isDNS1123Subdomain(name)).toBe(valid));

  it('says what a subdomain is', () => {
    expect(messages(dns1123Subdomain(), 'a_b')).toEqual([DNS1123_SUBDOMAIN_MESSAGE]);
    expect(messages(dns1123Subdomain({ required: 'must not be empty' }), '')).toContain('must not be empty');
  });
});

describe('DNS-1035 label', () => {
  it.each([
    ['web', true],
    ['a1-b2', true],
    ['a'.repeat(63), true],
    ['a'.repeat(64), false],
    ['1web', false],
    ['web-', false],
    ['we_b', false],
  ])('%j → %s', (name, valid) => expect(isDNS1035Label(name)).toBe(valid));
});

describe('longshore names', () => {
  it.each([
    ['web', []],
    ['a'.repeat(30), []],
    ['a'.repeat(31), ['must be at most 30 characters']],
    ['', ['is required (an app name)', DNS1035_LABEL_MESSAGE]],
    ['1web', [DNS1035_LABEL_MESSAGE]],
  ])('app name %j', (name, expected) => expect(messages(appName, name)).toEqual(expected));

  it.each([
    ['web', undefined],
    ['a'.repeat(PROCESS_TYPE_MAX), undefined],
    ['a'.repeat(PROCESS_TYPE_MAX + 1), 'must be at most 20 characters'],
    [
      'Web_1',
      'must be lowercase letters, digits and "-", start with a letter and end with a letter or digit (e.g. web, worker)',
    ],
    ['1web', expect.stringMatching(/^must be lowercase letters/)],
  ])('process type %j', (type, problem) => expect(processTypeProblem(type)).toEqual(problem));

  it.each([
    ['data', []],
    ['0data', []],
    ['a'.repeat(45), []],
    ['a'.repeat(46), ['must be at most 45 characters']],
    ['', ['is required (a storage entry name)', DNS1123_LABEL_MESSAGE]],
  ])('storage entry %j', (name, expected) => expect(messages(storageName, name)).toEqual(expected));
});
