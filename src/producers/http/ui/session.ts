/**
 * The dashboard's session: after a token login, a cookie holding who logged in, their scope and
 * when the session ends, signed with HMAC-SHA256 (so it cannot be forged or edited), HttpOnly and
 * SameSite=Strict. The signing key comes from LONGSHORE_SECRET (HKDF), so every API server of a
 * fleet accepts the others' sessions; without a secret, a random key per process. The CSRF token
 * of a session's forms is an HMAC of its id under the same key.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenScope } from '../tokens.ts';

export const SESSION_COOKIE = 'longshore_session';
/** A session lasts a working day; then the token is asked for again. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;

export interface Session {
  id: string;
  name: string;
  scope: TokenScope;
  expiresAt: number;
}

export class SessionKeys {
  private constructor(private readonly key: Buffer) {}

  static fromSecret(secret: string | undefined): SessionKeys {
    if (!secret) return new SessionKeys(randomBytes(32));
    return new SessionKeys(Buffer.from(hkdfSync('sha256', secret, 'longshore/ui-session', 'v1', 32)));
  }

  private mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }

  /** The cookie value of a new session for a token. */
  issue(name: string, scope: TokenScope, now = Date.now()): { value: string; session: Session } {
    const session: Session = {
      id: randomBytes(16).toString('base64url'),
      name,
      scope,
      expiresAt: now + SESSION_TTL_MS,
    };
    const body = Buffer.from(JSON.stringify(session)).toString('base64url');
    return { value: `${body}.${this.mac(body)}`, session };
  }

  /** The session a cookie value holds, when its signature is right and it has not expired. */
  verify(value: string | undefined, now = Date.now()): Session | undefined {
    if (!value) return undefined;
    const [body, mac, ...rest] = value.split('.');
    if (!body || !mac || rest.length > 0) return undefined;
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const session = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Session;
      return session.expiresAt > now ? session : undefined;
    } catch {
      return undefined;
    }
  }

  csrfToken(session: Session): string {
    return this.mac(`csrf:${session.id}`);
  }

  checkCsrf(session: Session, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const expected = Buffer.from(this.csrfToken(session));
    const got = Buffer.from(given);
    return got.length === expected.length && timingSafeEqual(got, expected);
  }
}

/** `name=value` pairs of a Cookie header. */
export function cookiesOf(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) cookies[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return cookies;
}
