/** The bounded memo of namespaces known to exist (src/workers/deploy/known-namespaces.ts). */
import { describe, expect, it } from 'vitest';
import { KnownNamespaces } from '../../../src/workers/deploy/known-namespaces.ts';

describe('KnownNamespaces', () => {
  it('remembers what was added until it is forgotten', () => {
    const known = new KnownNamespaces();
    expect(known.has('shop')).toBe(false);
    known.add('shop');
    expect(known.has('shop')).toBe(true);
    known.forget('shop');
    expect(known.has('shop')).toBe(false);
  });

  it('keeps at most its capacity, forgetting the least recently used name first', () => {
    const known = new KnownNamespaces(2);
    known.add('a');
    known.add('b');
    // A hit makes `a` the most recently used: `b` goes first.
    expect(known.has('a')).toBe(true);
    known.add('c');
    expect(known.size).toBe(2);
    expect(known.has('b')).toBe(false);
    expect(known.has('a')).toBe(true);
    expect(known.has('c')).toBe(true);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new KnownNamespaces(0)).toThrow(/positive integer, not 0/);
  });
});
