/**
 * Bearer tokens of the HTTP API. The server is configured with hashes only
 * (`LONGSHORE_API_TOKENS=name:scope:sha256hex,…`; `longshore api-token:create` prints a new token
 * and its entry), so a leaked configuration leaks no token. A presented token is hashed and
 * compared with every configured hash in constant time: neither a match's position nor a partial
 * match shows in the response time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../../core/errors.ts';

export type TokenScope = 'read' | 'write';

export interface ApiToken {
  name: string;
  scope: TokenScope;
  hash: Buffer;
}

const ENTRY = /^([A-Za-z0-9][A-Za-z0-9._-]{0,62}):(read|write):([0-9a-f]{64})$/;

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A new random token (256 bits, URL-safe) and the configuration entry that admits it. */
export function newToken(name: string, scope: TokenScope): { token: string; entry: string } {
  const token = `lst_${randomBytes(32).toString('base64url')}`;
  const entry = `${name}:${scope}:${hashToken(token).toString('hex')}`;
  if (!ENTRY.test(entry)) {
    throw new ConfigError(
      `token name "${name}" must be 1–63 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  return { token, entry };
}

/** Parses LONGSHORE_API_TOKENS; a malformed entry is a ConfigError naming it (by position, never its hash). */
export function parseTokens(value: string | undefined): ApiToken[] {
  if (!value?.trim()) return [];
  const tokens: ApiToken[] = [];
  value.split(',').forEach((raw, index) => {
    const entry = raw.trim();
    const match = ENTRY.exec(entry);
    if (!match) {
      throw new ConfigError(
        `LONGSHORE_API_TOKENS entry ${index + 1} is not NAME:read|write:SHA256-HEX (create one with \`longshore api-token:create NAME --scope write\`)`,
      );
    }
    if (tokens.some((t) => t.name === match[1])) {
      throw new ConfigError(`LONGSHORE_API_TOKENS names the token "${match[1]}" twice`);
    }
    tokens.push({ name: match[1]!, scope: match[2] as TokenScope, hash: Buffer.from(match[3]!, 'hex') });
  });
  return tokens;
}

/** The configured token `presented` is, or undefined; every hash is compared, whatever matches. */
export function verifyToken(tokens: readonly ApiToken[], presented: string): ApiToken | undefined {
  const hash = hashToken(presented);
  let found: ApiToken | undefined;
  for (const token of tokens) {
    if (timingSafeEqual(token.hash, hash) && !found) found = token;
  }
  return found;
}

/** Whether a token of `scope` may do what `needed` asks: write includes read. */
export function allows(scope: TokenScope, needed: TokenScope): boolean {
  return scope === 'write' || needed === 'read';
}
