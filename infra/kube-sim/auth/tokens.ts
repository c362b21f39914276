/**
 * ServiceAccount tokens: ES256 JWTs (upstream signs with the --service-account-signing-key, RSA or
 * ECDSA; an ECDSA P-256 key is made quickly at every start) with the claims upstream's issuer writes
 * (pkg/serviceaccount/claims.go: iss, sub, aud, exp, iat, nbf, jti and the private
 * `kubernetes.io` claim naming the namespace and the ServiceAccount with its uid), signed by a
 * key pair made when the simulator starts, and checked the way pkg/serviceaccount/jwt.go's
 * validator does: signature, issuer, audience, expiry, and that the ServiceAccount still exists
 * with the same uid.
 */
import { generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';

/** The issuer and API audience a kind or kubeadm cluster uses (--service-account-issuer). */
export const TOKEN_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** pkg/apis/authentication/validation: a TokenRequest may not ask for less than 10 minutes. */
export const MIN_EXPIRATION_SECONDS = 600;
export const DEFAULT_EXPIRATION_SECONDS = 3600;

export interface TokenClaims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': {
    namespace: string;
    serviceaccount: { name: string; uid: string };
  };
}

export class InvalidTokenError extends Error {}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export class TokenIssuer {
  private readonly privateKey;
  private readonly publicKey;
  private readonly keyId: string;

  constructor() {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
    // Upstream's kid: a hash of the public key (keyIDFromPublicKey); any stable id does.
    const der = this.publicKey.export({ type: 'spki', format: 'der' });
    this.keyId = Buffer.from(der.subarray(-32)).toString('base64url');
  }

  issue(request: {
    namespace: string;
    name: string;
    uid: string;
    audiences?: string[];
    expirationSeconds: number;
    /** Seconds since the epoch; tests issue tokens in the past to see them expire. */
    now?: number;
  }): { token: string; claims: TokenClaims } {
    const now = request.now ?? Math.floor(Date.now() / 1000);
    const claims: TokenClaims = {
      aud: request.audiences && request.audiences.length > 0 ? request.audiences : [TOKEN_ISSUER],
      exp: now + request.expirationSeconds,
      iat: now,
      iss: TOKEN_ISSUER,
      jti: randomUUID(),
      'kubernetes.io': {
        namespace: request.namespace,
        serviceaccount: { name: request.name, uid: request.uid },
      },
      nbf: now,
      sub: `system:serviceaccount:${request.namespace}:${request.name}`,
    };
    const signingInput = `${b64({ alg: 'ES256', kid: this.keyId })}.${b64(claims)}`;
    const signature = sign('sha256', Buffer.from(signingInput), {
      key: this.privateKey,
      dsaEncoding: 'ieee-p1363',
    }).toString('base64url');
    return { token: `${signingInput}.${signature}`, claims };
  }

  /** The claims of a token this issuer signed, still valid for the API audience; throws otherwise. */
  verify(token: string, now = Math.floor(Date.now() / 1000)): TokenClaims {
    const parts = token.split('.');
    if (parts.length !== 3) throw new InvalidTokenError('not a JWT');
    const [header, payload, signature] = parts as [string, string, string];
    const ok = verify(
      'sha256',
      Buffer.from(`${header}.${payload}`),
      { key: this.publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    );
    if (!ok) throw new InvalidTokenError('invalid signature');
    let claims: TokenClaims;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims;
    } catch {
      throw new InvalidTokenError('malformed claims');
    }
    if (claims.iss !== TOKEN_ISSUER) throw new InvalidTokenError('wrong issuer');
    if (!Array.isArray(claims.aud) || !claims.aud.includes(TOKEN_ISSUER))
      throw new InvalidTokenError('token audiences do not match the API audience');
    if (typeof claims.exp !== 'number' || claims.exp <= now) throw new InvalidTokenError('token has expired');
    if (typeof claims.nbf === 'number' && claims.nbf > now + 60)
      throw new InvalidTokenError('token not valid yet');
    return claims;
  }
}
