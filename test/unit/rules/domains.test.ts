import { describe, expect, it } from 'vitest';
import { HOSTNAME_MESSAGE, hostname, hostnameInput, hostnameProblem } from '../../../rules/domains.ts';

const longest = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`; // 253

describe('hostnames', () => {
  it.each([
    ['app.example.com', undefined],
    ['*.example.com', undefined],
    ['localhost', undefined],
    ['a-1.b-2', undefined],
    [`${'a'.repeat(63)}.com`, undefined],
    [longest, undefined],
    [`${longest}d`, 'must be at most 253 characters'],
    [`${'a'.repeat(64)}.com`, 'each part must be at most 63 characters'],
    ['10.0.0.1', 'must be a hostname, not an IP address'],
    ['', HOSTNAME_MESSAGE],
    ['a..b', HOSTNAME_MESSAGE],
    ['-a.com', HOSTNAME_MESSAGE],
    ['a.*.com', HOSTNAME_MESSAGE],
    ['*', HOSTNAME_MESSAGE],
    ['*.', HOSTNAME_MESSAGE],
    ['App.example.com', HOSTNAME_MESSAGE],
    ['a_b.com', HOSTNAME_MESSAGE],
  ])('%j → %s', (host, problem) => expect(hostnameProblem(host)).toBe(problem));

  it('refuses upper case as given, and lowercases what a person types', () => {
    expect(hostname.safeParse('Shop.Example.com').success).toBe(false);
    expect(hostnameInput.parse('Shop.Example.com')).toBe('shop.example.com');
    expect(hostnameInput.safeParse('10.0.0.1').error?.issues.map((i) => i.message)).toEqual([
      'must be a hostname, not an IP address',
    ]);
  });
});
