/**
 * What the HTTP server calls before routing a request: authenticate it (401 when its token does
 * not), authorize it (403 with upstream's message when the authorizer says no), and answer the
 * creates that are not stored (reviews, TokenRequest). `always-allow` (the default) is
 * kube-apiserver's --authorization-mode=AlwaysAllow; `rbac` is --authorization-mode=RBAC.
 */
import type { IncomingMessage } from 'node:http';
import type { Route } from '../server/router.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { forbidden, requestAttributes } from './attributes.ts';
import { Authenticator } from './authenticator.ts';
import { RbacAuthorizer } from './rbac-authorizer.ts';
import { ALWAYS_ALLOW, type Authorizer, serveAuthCreate } from './reviews.ts';
import type { TokenIssuer } from './tokens.ts';
import type { UserInfo } from './user.ts';

export type AuthorizationMode = 'always-allow' | 'rbac';
export const AUTHORIZATION_MODES: AuthorizationMode[] = ['always-allow', 'rbac'];

export function requestAuth(store: ObjectStore, tokens: TokenIssuer, mode: AuthorizationMode) {
  const authenticator = new Authenticator(store, tokens);
  const rbac = new RbacAuthorizer(store);
  const authorizer: Authorizer =
    mode === 'rbac' ? { authorize: (a) => rbac.authorize(a), rules: rbac } : ALWAYS_ALLOW;
  return {
    authenticator,
    authorizer,
    check(
      req: IncomingMessage,
      r: Route,
      verb: string,
      path: string,
      query: URLSearchParams,
      authenticated?: (username: string) => void,
    ): UserInfo {
      const user = authenticator.authenticate(req);
      authenticated?.(user.username);
      const attributes = requestAttributes(user, req.method ?? 'GET', path, r, verb, query);
      const decision = authorizer.authorize(attributes);
      if (!decision.allowed) throw forbidden(attributes, decision.reason);
      return user;
    },
    create(r: Route & { kind: 'resource' }, body: unknown, user: unknown): unknown {
      return serveAuthCreate(r.type, r.namespace, r.name, r.subresource, body, user as UserInfo, {
        store,
        authorizer,
        tokens,
      });
    },
  };
}
