/**
 * The create-only kinds of authentication.k8s.io/v1 and authorization.k8s.io/v1, answered from the
 * request's user and the authorizer and never stored, and the TokenRequest subresource
 * `serviceaccounts/<name>/token`:
 * - SelfSubjectReview (pkg/registry/authentication/selfsubjectreview): the caller's user info;
 * - SelfSubjectAccessReview / SubjectAccessReview / LocalSubjectAccessReview
 *   (pkg/registry/authorization/*subjectaccessreview, util.ResourceAttributesFrom): would this
 *   user be allowed this request;
 * - SelfSubjectRulesReview (pkg/registry/authorization/selfsubjectrulesreview): the caller's rules
 *   in a namespace;
 * - TokenRequest (pkg/registry/core/serviceaccount/storage/token.go): a signed token for the
 *   ServiceAccount, expirationSeconds defaulted to 3600 and at least 600.
 */
import { type StatusError, statusErrors } from '../errors.ts';
import type { ResourceType } from '../resources.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { isPlainObject, type KubeObject } from '../types.ts';
import type { Attributes } from './attributes.ts';
import type { Decision, PolicyRule, RbacAuthorizer } from './rbac-authorizer.ts';
import { DEFAULT_EXPIRATION_SECONDS, MIN_EXPIRATION_SECONDS, type TokenIssuer } from './tokens.ts';
import type { UserInfo } from './user.ts';

export interface Authorizer {
  authorize(a: Attributes): Decision;
  /** For SelfSubjectRulesReview; undefined when the mode has no rules to list (AlwaysAllow). */
  rules?: RbacAuthorizer;
}

/** --authorization-mode=AlwaysAllow: what kube-sim always did. */
export const ALWAYS_ALLOW: Authorizer = { authorize: () => ({ allowed: true, reason: '' }) };

export interface ReviewDeps {
  store: ObjectStore;
  authorizer: Authorizer;
  tokens: TokenIssuer;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (isPlainObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function attributesFromSpec(spec: Json, user: UserInfo): Attributes {
  const resource = obj(spec.resourceAttributes);
  const nonResource = obj(spec.nonResourceAttributes);
  if (isPlainObject(spec.resourceAttributes)) {
    return {
      user,
      verb: str(resource.verb),
      resourceRequest: true,
      apiGroup: str(resource.group),
      resource: str(resource.resource),
      subresource: str(resource.subresource),
      namespace: str(resource.namespace),
      name: str(resource.name),
      path: '',
    };
  }
  return {
    user,
    verb: str(nonResource.verb),
    resourceRequest: false,
    apiGroup: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
    path: str(nonResource.path),
  };
}

function reviewInvalid(kind: string, detail: string, field = 'spec.resourceAttributes'): StatusError {
  const type = { group: 'authorization.k8s.io', kind, plural: '' } as ResourceType;
  return statusErrors.invalid(type, '', [{ type: 'FieldValueRequired', field, detail }]);
}

function accessReview(kind: string, body: Json, user: UserInfo, deps: ReviewDeps): KubeObject {
  const spec = obj(body.spec);
  const hasResource = isPlainObject(spec.resourceAttributes);
  const hasNonResource = isPlainObject(spec.nonResourceAttributes);
  // pkg/apis/authorization/validation: exactly one of the two.
  if (hasResource === hasNonResource) {
    throw reviewInvalid(
      kind,
      hasResource
        ? 'cannot be specified in combination with resourceAttributes'
        : 'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      hasResource ? 'spec.nonResourceAttributes' : 'spec.resourceAttributes',
    );
  }
  const decision = deps.authorizer.authorize(attributesFromSpec(spec, user));
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind,
    metadata: { ...obj(body.metadata), creationTimestamp: null },
    spec,
    status: {
      allowed: decision.allowed,
      ...(decision.reason ? { reason: decision.reason } : {}),
    },
  } as unknown as KubeObject;
}

function rulesReview(body: Json, user: UserInfo, deps: ReviewDeps): KubeObject {
  const spec = obj(body.spec);
  const namespace = str(spec.namespace);
  const { rules, errors } = deps.authorizer.rules
    ? deps.authorizer.rules.rulesFor(user, namespace)
    : {
        rules: [
          { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
          { verbs: ['*'], nonResourceURLs: ['*'] },
        ],
        errors: [],
      };
  const isMaster = user.groups.includes('system:masters');
  const all: PolicyRule[] = isMaster
    ? [
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
        ...rules,
      ]
    : rules;
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    metadata: { creationTimestamp: null },
    spec,
    status: {
      resourceRules: all
        .filter((r) => !r.nonResourceURLs)
        .map((r) => ({
          verbs: r.verbs ?? [],
          ...(r.apiGroups ? { apiGroups: r.apiGroups } : {}),
          ...(r.resources ? { resources: r.resources } : {}),
          ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}),
        })),
      nonResourceRules: all
        .filter((r) => r.nonResourceURLs)
        .map((r) => ({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs })),
      incomplete: errors.length > 0,
      ...(errors.length > 0 ? { evaluationError: errors.join(', ') } : {}),
    },
  } as unknown as KubeObject;
}

function userInfoJson(user: UserInfo): Json {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: user.groups,
    ...(user.extra ? { extra: user.extra } : {}),
  };
}

function tokenRequest(
  namespace: string,
  name: string,
  body: Json,
  deps: ReviewDeps,
  serviceAccounts: ResourceType,
): KubeObject {
  const sa = deps.store.get(`/${serviceAccounts.plural}`, namespace, name);
  if (!sa) throw statusErrors.notFound(serviceAccounts, name);
  const spec = obj(body.spec);
  const seconds =
    typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : DEFAULT_EXPIRATION_SECONDS;
  const type = {
    group: 'authentication.k8s.io',
    kind: 'TokenRequest',
    plural: 'tokenrequests',
  } as ResourceType;
  // pkg/apis/authentication/validation/validation.go ValidateTokenRequest.
  if (seconds < MIN_EXPIRATION_SECONDS)
    throw statusErrors.invalid(type, name, [
      {
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        value: seconds,
        detail: 'may not specify a duration less than 10 minutes',
      },
    ]);
  if (seconds > 2 ** 32)
    throw statusErrors.invalid(type, name, [
      {
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        value: seconds,
        detail: 'may not specify a duration larger than 2^32 seconds',
      },
    ]);
  const audiences = Array.isArray(spec.audiences) ? spec.audiences.map(String) : [];
  const { token, claims } = deps.tokens.issue({
    namespace,
    name,
    uid: sa.metadata.uid!,
    audiences,
    expirationSeconds: seconds,
  });
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: { name, namespace, creationTimestamp: null },
    spec: { audiences: claims.aud, expirationSeconds: seconds, boundObjectRef: spec.boundObjectRef ?? null },
    status: {
      token,
      expirationTimestamp: `${new Date(claims.exp * 1000).toISOString().slice(0, 19)}Z`,
    },
  } as unknown as KubeObject;
}

/**
 * Answers a create of one of these kinds (or of serviceaccounts/token); undefined for any other
 * request, which goes to the API service.
 */
export function serveAuthCreate(
  type: ResourceType,
  namespace: string | undefined,
  name: string | undefined,
  subresource: string | undefined,
  body: unknown,
  user: UserInfo,
  deps: ReviewDeps,
): KubeObject | undefined {
  const b = obj(body);
  if (type.group === '' && type.plural === 'serviceaccounts' && subresource === 'token')
    return tokenRequest(namespace!, name!, b, deps, type);
  switch (`${type.group}/${type.kind}`) {
    case 'authentication.k8s.io/SelfSubjectReview':
      return {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'SelfSubjectReview',
        metadata: { creationTimestamp: null },
        status: { userInfo: userInfoJson(user) },
      } as unknown as KubeObject;
    case 'authorization.k8s.io/SelfSubjectAccessReview':
      return accessReview('SelfSubjectAccessReview', b, user, deps);
    case 'authorization.k8s.io/SubjectAccessReview': {
      const spec = obj(b.spec);
      const subject: UserInfo = {
        username: str(spec.user),
        groups: Array.isArray(spec.groups) ? spec.groups.map(String) : [],
        ...(spec.uid ? { uid: str(spec.uid) } : {}),
      };
      if (!subject.username && subject.groups.length === 0)
        throw reviewInvalid(
          'SubjectAccessReview',
          'at least one of user or group must be specified',
          'spec.user',
        );
      return accessReview('SubjectAccessReview', b, subject, deps);
    }
    case 'authorization.k8s.io/LocalSubjectAccessReview': {
      const spec = obj(b.spec);
      const attrs = obj(spec.resourceAttributes);
      if (str(attrs.namespace) !== (namespace ?? ''))
        throw statusErrors.badRequest(
          `spec.resourceAttributes.namespace must match namespace: ${namespace ?? ''}`,
        );
      const subject: UserInfo = {
        username: str(spec.user),
        groups: Array.isArray(spec.groups) ? spec.groups.map(String) : [],
      };
      return accessReview('LocalSubjectAccessReview', b, subject, deps);
    }
    case 'authorization.k8s.io/SelfSubjectRulesReview':
      return rulesReview(b, user, deps);
    default:
      return undefined;
  }
}
