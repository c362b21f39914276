/**
 * The authorizer's view of a request (authorizer.Attributes), built as kube-apiserver's
 * RequestInfo does (staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go): a
 * resource request has a verb (get/list/watch/create/update/patch/delete/deletecollection),
 * API group, resource, subresource, namespace and name; anything else is a non-resource request
 * whose verb is the lower-cased HTTP method and whose path is the URL path.
 */
import { StatusError } from '../errors.ts';
import type { Route } from '../server/router.ts';
import type { UserInfo } from './user.ts';

export interface Attributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

export function requestAttributes(
  user: UserInfo,
  method: string,
  path: string,
  r: Route,
  verb: string,
  query: URLSearchParams,
): Attributes {
  if (r.kind !== 'resource') {
    return {
      user,
      verb: method.toLowerCase(),
      resourceRequest: false,
      apiGroup: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
      path,
    };
  }
  let name = r.name ?? '';
  // A list or watch narrowed to one object by `fieldSelector=metadata.name=x` is authorized as
  // that object (requestinfo.go, so `kubectl get pod x -w` needs only resourceNames [x]).
  if ((verb === 'list' || verb === 'watch') && name === '') {
    const selector = query.get('fieldSelector') ?? '';
    const only = /^metadata\.name==?([^,]+)$/.exec(selector);
    if (only) name = only[1]!;
  }
  return {
    user,
    verb,
    resourceRequest: true,
    apiGroup: r.type.group,
    resource: r.type.plural,
    subresource: r.subresource ?? '',
    // A Namespace's own namespace is its name (requestinfo.go).
    namespace: r.type.plural === 'namespaces' && r.type.group === '' ? (r.name ?? '') : (r.namespace ?? ''),
    name,
    path,
  };
}

/**
 * The 403 for a denied request: responsewriters/errors.go Forbidden + forbiddenMessage, wrapped
 * in errors.NewForbidden's `<resource> "<name>" is forbidden: <why>`.
 */
export function forbidden(a: Attributes, reason = ''): StatusError {
  const user = a.user.username;
  let why: string;
  if (!a.resourceRequest) why = `User "${user}" cannot ${a.verb} path "${a.path}"`;
  else {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    why = a.namespace
      ? `User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" in the namespace "${a.namespace}"`
      : `User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" at the cluster scope`;
  }
  if (reason) why = `${why}: ${reason}`;
  const qualified = a.resourceRequest ? (a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource) : '';
  const message = a.name
    ? `${qualified} "${a.name}" is forbidden: ${why}`
    : qualified
      ? `${qualified} is forbidden: ${why}`
      : `forbidden: ${why}`;
  return new StatusError(403, 'Forbidden', message, {
    ...(a.name ? { name: a.name } : {}),
    ...(a.apiGroup ? { group: a.apiGroup } : {}),
    ...(a.resource ? { kind: a.resource } : {}),
  });
}
