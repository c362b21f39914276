/**
 * URL paths of the Kubernetes API: `/api/v1[/namespaces/<ns>]/<plural>[/<name>[/<sub>]]` and the
 * same under `/apis/<group>/<version>`, plus discovery, OpenAPI and the simulator's admin paths.
 */
import { findByPlural, type ResourceType } from '../resources.ts';

export type Route =
  | { kind: 'resource'; type: ResourceType; namespace?: string; name?: string; subresource?: string }
  | { kind: 'version' }
  | { kind: 'api' }
  | { kind: 'apis' }
  | { kind: 'resource-list'; group: string; version: string }
  | { kind: 'group'; group: string }
  | { kind: 'openapi-v3-index' }
  | { kind: 'openapi-v3'; path: string }
  | { kind: 'health'; which: string }
  | { kind: 'metrics' }
  | { kind: 'admin'; path: string[] }
  | { kind: 'not-found' };

/** Paths under this prefix are the simulator's own admin API; no real client ever calls them. */
export const ADMIN_PREFIX = '/__sim';

export function route(pathname: string): Route {
  const clean = pathname.replace(/\/+$/, '') || '/';
  if (clean === '/version') return { kind: 'version' };
  if (clean === '/api') return { kind: 'api' };
  if (clean === '/apis') return { kind: 'apis' };
  if (clean === '/openapi/v3') return { kind: 'openapi-v3-index' };
  if (clean.startsWith('/openapi/v3/'))
    return { kind: 'openapi-v3', path: clean.slice('/openapi/v3/'.length) };
  if (['/healthz', '/readyz', '/livez'].includes(clean)) return { kind: 'health', which: clean.slice(1) };
  if (clean === '/metrics') return { kind: 'metrics' };
  if (clean === ADMIN_PREFIX || clean.startsWith(`${ADMIN_PREFIX}/`)) {
    return { kind: 'admin', path: clean.slice(ADMIN_PREFIX.length).split('/').filter(Boolean) };
  }
  const segments = clean.split('/').filter(Boolean).map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 2) {
    group = '';
    version = segments[1]!;
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 3) {
    group = segments[1]!;
    version = segments[2]!;
    rest = segments.slice(3);
  } else if (segments[0] === 'apis' && segments.length === 2) {
    return { kind: 'group', group: segments[1]! };
  } else return { kind: 'not-found' };
  if (rest.length === 0) return { kind: 'resource-list', group, version };

  // /namespaces/<ns>/<plural>/... addresses namespaced resources; /namespaces/<name>[/<sub>] the namespace itself.
  if (
    rest[0] === 'namespaces' &&
    group === '' &&
    rest.length >= 3 &&
    !['status', 'finalize'].includes(rest[2]!)
  ) {
    const type = findByPlural(group, version, rest[2]!);
    if (!type?.namespaced || rest.length > 5) return { kind: 'not-found' };
    return withParts(type, rest[1], rest[3], rest[4]);
  }
  if (rest[0] === 'namespaces' && group !== '' && rest.length >= 3) {
    const type = findByPlural(group, version, rest[2]!);
    if (!type?.namespaced || rest.length > 5) return { kind: 'not-found' };
    return withParts(type, rest[1], rest[3], rest[4]);
  }
  const type = findByPlural(group, version, rest[0]!);
  if (!type || rest.length > 3) return { kind: 'not-found' };
  // A namespaced type addressed without a namespace: only collection reads across namespaces.
  if (type.namespaced && rest.length > 1) return { kind: 'not-found' };
  return withParts(type, undefined, rest[1], rest[2]);
}

function withParts(type: ResourceType, namespace?: string, name?: string, subresource?: string): Route {
  if (subresource && !type.subresources.some((s) => s.name === subresource)) return { kind: 'not-found' };
  return {
    kind: 'resource',
    type,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
  };
}
