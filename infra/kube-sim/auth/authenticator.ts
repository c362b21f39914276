/**
 * Request authentication, as kube-apiserver's chain does it
 * (staging/src/k8s.io/apiserver/pkg/endpoints/filters/authentication.go): a bearer token must
 * authenticate or the request is 401 Unauthorized (an invalid token never falls back to
 * anonymous); a request with no credentials is `system:anonymous` in `system:unauthenticated`
 * (pkg/authentication/request/anonymous). The tokens known: the admin token of the kubeconfig
 * kube-sim writes (a static token, like --token-auth-file, in system:masters) and ServiceAccount
 * tokens from the TokenRequest subresource (pkg/serviceaccount/jwt.go + legacy validator checks
 * that the ServiceAccount still exists with the uid in the token).
 */
import type { IncomingMessage } from 'node:http';
import { StatusError } from '../errors.ts';
import { findByKind } from '../resources.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { InvalidTokenError, type TokenIssuer } from './tokens.ts';
import {
  ANONYMOUS_USER,
  SIM_ADMIN,
  serviceAccountGroups,
  serviceAccountUsername,
  type UserInfo,
} from './user.ts';

/** The token in the kubeconfig kube-sim writes (kubeconfig.ts). */
export const ADMIN_TOKEN = 'kube-sim';

const SERVICE_ACCOUNTS = findByKind('v1', 'ServiceAccount')!;

/** The 401 kube-apiserver answers (responsewriters.Unauthorized via filters/authentication.go). */
export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

export class Authenticator {
  constructor(
    private readonly store: ObjectStore,
    private readonly tokens: TokenIssuer,
  ) {}

  /** The user of a request; throws the 401 StatusError when its credentials do not authenticate. */
  authenticate(req: IncomingMessage): UserInfo {
    const header = req.headers.authorization;
    if (header === undefined) return ANONYMOUS_USER;
    // pkg/authentication/request/bearertoken: `Bearer <token>`, case-insensitive scheme.
    const match = /^bearer\s+(\S+)\s*$/i.exec(header);
    // Other schemes (basic) are not understood: no authenticator answers, so upstream goes on to
    // anonymous only when no authenticator errored; a malformed bearer header is an error.
    if (!match) {
      if (/^bearer/i.test(header)) throw unauthorized();
      return ANONYMOUS_USER;
    }
    return this.authenticateToken(match[1]!);
  }

  authenticateToken(token: string): UserInfo {
    if (token === ADMIN_TOKEN) return SIM_ADMIN;
    try {
      const claims = this.tokens.verify(token);
      const { namespace, serviceaccount } = claims['kubernetes.io'];
      const sa = this.store.get(`/${SERVICE_ACCOUNTS.plural}`, namespace, serviceaccount.name);
      if (!sa || sa.metadata.uid !== serviceaccount.uid || sa.metadata.deletionTimestamp)
        throw unauthorized();
      return {
        username: serviceAccountUsername(namespace, serviceaccount.name),
        uid: serviceaccount.uid,
        groups: serviceAccountGroups(namespace),
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
      };
    } catch (err) {
      if (err instanceof InvalidTokenError || err instanceof StatusError) throw unauthorized();
      throw err;
    }
  }
}
