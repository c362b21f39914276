import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { allows, hashToken, newToken, parseTokens, verifyToken } from '../../../src/producers/http/tokens.ts';

describe('API tokens', () => {
  it('admits a new token through its entry, and nothing else', () => {
    const { token, entry } = newToken('ci', 'write');
    expect(token).toMatch(/^lst_[A-Za-z0-9_-]{43}$/);
    expect(entry).toBe(`ci:write:${hashToken(token).toString('hex')}`);
    expect(entry).not.toContain(token.slice(4));
    const tokens = parseTokens(`${newToken('other', 'read').entry}, ${entry}`);
    expect(verifyToken(tokens, token)).toMatchObject({ name: 'ci', scope: 'write' });
    expect(verifyToken(tokens, `${token}x`)).toBeUndefined();
    expect(verifyToken(tokens, '')).toBeUndefined();
    expect(verifyToken([], token)).toBeUndefined();
  });

  it('refuses a malformed or repeated entry, naming its position but never its text', () => {
    const hash = 'a'.repeat(64);
    expect(parseTokens(undefined)).toEqual([]);
    expect(parseTokens('  ')).toEqual([]);
    expect(() => parseTokens(`ci:admin:${hash}`)).toThrow(ConfigError);
    expect(() => parseTokens(`ci:read:${hash},ci:write:${'b'.repeat(64)}`)).toThrow(
      /names the token "ci" twice/,
    );
    try {
      parseTokens(`ci:read:${hash},oops:read:${'c'.repeat(63)}`);
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(
        /^LONGSHORE_API_TOKENS entry 2 is not NAME:read\|write:SHA256-HEX/,
      );
      expect((err as Error).message).not.toContain('ccc');
    }
    expect(() => newToken('bad name', 'read')).toThrow(/token name "bad name"/);
  });

  it('lets a write token read, and a read token only read', () => {
    expect(allows('write', 'write')).toBe(true);
    expect(allows('write', 'read')).toBe(true);
    expect(allows('read', 'read')).toBe(true);
    expect(allows('read', 'write')).toBe(false);
  });
});
