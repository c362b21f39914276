/**
 * OpenAPI v3 documents (`/openapi/v3` and `/openapi/v3/<api path>`), generated from RESOURCE_TYPES.
 *
 * What clients need from them (kubectl 1.33, helm 4 through cli-runtime):
 * - The index maps `api/v1` and `apis/<group>/<version>` to `serverRelativeURL`s with a `hash`
 *   (kube-openapi handler3: uppercase hex SHA-512 of the document, the ETag).
 * - `QueryParamVerifierV3` decides whether to send `fieldValidation` by finding *a* PATCH whose
 *   `x-kubernetes-group-version-kind` matches the kind (Go map order, so any of them) and looking
 *   for the parameter among that operation's own parameters. Every write operation here therefore
 *   declares dryRun, fieldManager and fieldValidation (and force on PATCH) at operation level;
 *   without that kubectl refuses, or falls back to client-side validation against /openapi/v2.
 *
 * PATCH bodies deliberately omit `application/strategic-merge-patch+json`: when a document
 * advertises it, client-side `kubectl apply` builds its strategic merge patch from these
 * schemas, which do not describe nested fields, and prints "warning: error calculating patch
 * from openapi v3 spec: unable to find api field" before falling back (checked with kubectl
 * 1.33.9). Without it kubectl asks /openapi/v2 (answer 404), then uses its compiled-in types,
 * which carry the exact upstream merge keys, silently. The server still accepts the type.
 */

import { createHash } from 'node:crypto';
import { customResourceSchema } from '../crd/openapi.ts';
import { groupVersion, type ResourceType, type SubresourceType, servedGroupVersions } from '../resources.ts';
import { clone } from '../types.ts';
import { type GroupVersionKind, KUBERNETES_VERSION, subresourceKind, typesOf } from './discovery-common.ts';
import {
  ATTACH_PARAMS,
  accepted,
  created,
  DELETE_PARAMS,
  EXEC_PARAMS,
  FORCE_PARAM,
  LIST_PARAMS,
  LOG_PARAMS,
  NAME_PARAM,
  NAMESPACE_PARAM,
  ok,
  PRETTY_PARAM,
  TEXT,
  UNAUTHORIZED,
  WRITE_PARAMS,
} from './discovery-parameters.ts';
import { type JsonObject, kindSchemas, metaSchemas, ref, SCHEMA, schemaName } from './discovery-schemas.ts';

export interface OpenApiV3Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

export interface OpenApiDocument {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Record<string, JsonObject>;
  components: { schemas: Record<string, JsonObject> };
}

/** `/openapi/v3`: every served group version, plus `api`, `apis` and each `apis/<group>` like upstream. */
export function openApiV3Index(): OpenApiV3Index {
  const paths: OpenApiV3Index['paths'] = {};
  for (const path of documentPaths()) {
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${openApiV3Hash(path)}` };
  }
  return { paths };
}

/**
 * The document for `api/v1`, `apis/apps/v1`, `api`, `apis`, `apis/apps`… (a leading
 * `/openapi/v3/` or `/` and a query string are ignored); undefined when there is none (404).
 */
export function openApiV3Document(path: string): OpenApiDocument | undefined {
  const key = normalize(path);
  if (key === 'api')
    return document({ '/api/': discoveryGet('getCoreAPIVersions', 'core', SCHEMA.apiVersions) });
  if (key === 'apis')
    return document({ '/apis/': discoveryGet('getAPIVersions', 'apis', SCHEMA.apiGroupList) });
  const parts = key.split('/');
  if (parts[0] === 'apis' && parts.length === 2) {
    const group = parts[1] ?? '';
    if (!servedGroupVersions().some((gv) => gv.group === group)) return undefined;
    const operation = discoveryGet(
      `get${groupWord(group)}APIGroup`,
      group.replace(/\.k8s\.io$/, ''),
      SCHEMA.apiGroup,
    );
    return document({ [`/apis/${group}/`]: operation });
  }
  const gv =
    parts[0] === 'api' && parts.length === 2
      ? { group: '', version: parts[1] ?? '' }
      : parts[0] === 'apis' && parts.length === 3
        ? { group: parts[1] ?? '', version: parts[2] ?? '' }
        : undefined;
  const types = gv ? typesOf(gv.group, gv.version) : [];
  if (!gv || types.length === 0) return undefined;
  return groupVersionDocument(gv, types);
}

/** Uppercase hex SHA-512 of the document's JSON, as kube-openapi's handler3 computes its ETag. */
export function openApiV3Hash(path: string): string {
  const doc = openApiV3Document(path);
  if (!doc) throw new Error(`no OpenAPI v3 document for ${path}`);
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}

function normalize(path: string): string {
  return path
    .replace(/[?#].*$/, '')
    .replace(/^\/?(openapi\/v3\/?)?/, '')
    .replace(/\/+$/, '');
}

function documentPaths(): string[] {
  const gvs = servedGroupVersions();
  const groups = [...new Set(gvs.map((gv) => gv.group).filter((g) => g !== ''))];
  const versions = gvs.map((gv) => (gv.group === '' ? `api/${gv.version}` : `apis/${groupVersion(gv)}`));
  return ['api', 'apis', ...groups.map((g) => `apis/${g}`), ...versions];
}

function document(
  paths: Record<string, JsonObject>,
  extra: Record<string, JsonObject> = {},
): OpenApiDocument {
  // Cloned because operations share parameter objects: a caller editing one document must not
  // change the next.
  return clone({
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBERNETES_VERSION.gitVersion },
    paths,
    components: { schemas: { ...metaSchemas(), ...extra } },
  });
}

function discoveryGet(operationId: string, tag: string, schema: string): JsonObject {
  return {
    get: { description: 'get available API versions', operationId, tags: [tag], responses: ok(schema) },
  };
}

function groupVersionDocument(
  gv: { group: string; version: string },
  types: ResourceType[],
): OpenApiDocument {
  const prefix = gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
  const paths: Record<string, JsonObject> = {
    [`${prefix}/`]: {
      get: {
        description: 'get available resources',
        operationId: `get${gvWord(gv)}APIResources`,
        tags: [tagOf(gv)],
        responses: ok(SCHEMA.apiResourceList),
      },
    },
  };
  const schemas: Record<string, JsonObject> = {};
  for (const type of types) {
    Object.assign(paths, resourcePaths(prefix, type));
    Object.assign(schemas, kindSchemas(type, true));
    // A custom resource's kind is described by its CRD's schema (crd/openapi.ts).
    const custom = customResourceSchema(type);
    if (custom) schemas[schemaName(type)] = custom;
    for (const sub of type.subresources) {
      const kind = subresourceKind(type, sub);
      // A connect subresource's options are query parameters, not a body: no schema (as upstream).
      if (kind.kind !== type.kind && !sub.connect) Object.assign(schemas, kindSchemas(kind, false));
    }
  }
  return document(sortKeys(paths), sortKeys(schemas));
}

/** Collection, item, all-namespaces list and subresource paths of one resource type. */
function resourcePaths(prefix: string, type: ResourceType): Record<string, JsonObject> {
  const { kind, namespaced } = type;
  const gvk: GroupVersionKind = { group: type.group, version: type.version, kind };
  const id = operationNamer(type);
  const when = (verb: string, make: () => JsonObject) => (type.verbs.includes(verb) ? make() : undefined);
  const collection = namespaced
    ? `${prefix}/namespaces/{namespace}/${type.plural}`
    : `${prefix}/${type.plural}`;
  const item = `${collection}/{name}`;
  const scopeParams = namespaced ? [NAMESPACE_PARAM] : [];
  const schema = schemaName(gvk);
  const listSchema = schemaName({ ...gvk, kind: type.listKind });
  const list = (operationId: string): JsonObject => {
    const description = `list or watch objects of kind ${kind}`;
    return operation({
      operationId,
      action: 'list',
      gvk,
      description,
      parameters: LIST_PARAMS,
      responses: ok(listSchema),
    });
  };
  const paths: Record<string, JsonObject> = {};

  paths[collection] = defined({
    get: when('list', () => list(id('list'))),
    post: when('create', () => write(id('create'), 'post', gvk, `create a ${kind}`, schema)),
    delete: when('deletecollection', () =>
      operation({
        operationId: id('delete', 'Collection'),
        action: 'deletecollection',
        gvk,
        description: `delete collection of ${kind}`,
        parameters: [...DELETE_PARAMS, ...LIST_PARAMS],
        responses: ok(SCHEMA.status),
        requestBody: DELETE_BODY,
      }),
    ),
    parameters: [...scopeParams, PRETTY_PARAM],
  });
  paths[item] = defined({
    get: when('get', () =>
      operation({
        operationId: id('read'),
        action: 'get',
        gvk,
        description: `read the specified ${kind}`,
        responses: ok(schema),
      }),
    ),
    put: when('update', () => write(id('replace'), 'put', gvk, `replace the specified ${kind}`, schema)),
    patch: when('patch', () => patch(id('patch'), gvk, `partially update the specified ${kind}`, schema)),
    delete: when('delete', () =>
      operation({
        operationId: id('delete'),
        action: 'delete',
        gvk,
        description: `delete a ${kind}`,
        parameters: DELETE_PARAMS,
        responses: accepted(SCHEMA.status),
        requestBody: DELETE_BODY,
      }),
    ),
    parameters: [NAME_PARAM(kind), ...scopeParams, PRETTY_PARAM],
  });
  if (namespaced && type.verbs.includes('list')) {
    paths[`${prefix}/${type.plural}`] = {
      get: list(`list${gvWord(type)}${kind}ForAllNamespaces`),
      parameters: [PRETTY_PARAM],
    };
  }
  for (const sub of type.subresources) {
    paths[`${item}/${sub.name}`] = subresourcePath(type, sub, [
      NAME_PARAM(kind),
      ...scopeParams,
      PRETTY_PARAM,
    ]);
  }
  return paths;
}

function subresourcePath(type: ResourceType, sub: SubresourceType, pathParameters: JsonObject[]): JsonObject {
  const gvk = subresourceKind(type, sub);
  if (sub.connect) return connectPath(type, sub, gvk, pathParameters);
  const schema = schemaName(gvk);
  const id = operationNamer(type, capitalize(sub.name));
  const what = `${sub.name} of the specified ${type.kind}`;
  const when = (verb: string, make: () => JsonObject) => (sub.verbs.includes(verb) ? make() : undefined);
  const read = (): JsonObject =>
    sub.name === 'log'
      ? operation({
          operationId: id('read'),
          action: 'get',
          gvk,
          description: `read log of the specified ${type.kind}`,
          parameters: LOG_PARAMS,
          responses: TEXT,
        })
      : operation({
          operationId: id('read'),
          action: 'get',
          gvk,
          description: `read ${what}`,
          responses: ok(schema),
        });
  return defined({
    get: when('get', read),
    put: when('update', () => write(id('replace'), 'put', gvk, `replace ${what}`, schema)),
    patch: when('patch', () => patch(id('patch'), gvk, `partially update ${what}`, schema)),
    parameters: pathParameters,
  });
}

/**
 * A connect subresource (pods/exec, pods/attach) as upstream's spec has it: GET and POST, action
 * `connect`, a string answer, the options as query parameters beside the path's.
 */
function connectPath(
  type: ResourceType,
  sub: SubresourceType,
  gvk: GroupVersionKind,
  pathParameters: JsonObject[],
): JsonObject {
  const id = operationNamer(type, capitalize(sub.name));
  const connect = (method: 'Get' | 'Post') =>
    operation({
      operationId: id('connect', method),
      action: 'connect',
      gvk,
      description: `connect ${method.toUpperCase()} requests to ${sub.name} of ${type.kind}`,
      responses: {
        '200': { description: 'OK', content: { '*/*': { schema: { type: 'string' } } } },
        ...UNAUTHORIZED,
      },
    });
  const options = sub.name === 'exec' ? EXEC_PARAMS : ATTACH_PARAMS;
  return {
    get: connect('Get'),
    post: connect('Post'),
    parameters: [...pathParameters.filter((p) => p.name !== 'pretty'), ...options],
  };
}

/** Upstream operation ids: `createAppsV1NamespacedDeployment`, `deleteCoreV1CollectionNamespacedPod`… */
function operationNamer(type: ResourceType, suffix = '') {
  const scope = type.namespaced ? 'Namespaced' : '';
  return (verb: string, infix = '') => `${verb}${gvWord(type)}${infix}${scope}${type.kind}${suffix}`;
}

interface OperationSpec {
  operationId: string;
  /** `x-kubernetes-action`: get, list, post, put, patch, delete, deletecollection. */
  action: string;
  gvk: GroupVersionKind;
  description: string;
  parameters?: JsonObject[];
  responses: JsonObject;
  requestBody?: JsonObject;
}

function operation({
  operationId,
  action,
  gvk,
  description,
  parameters,
  responses,
  requestBody,
}: OperationSpec): JsonObject {
  return {
    description,
    operationId,
    ...(parameters && parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    tags: [tagOf(gvk)],
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: gvk.group, version: gvk.version, kind: gvk.kind },
  };
}

/** POST and PUT: the write parameters every client checks for, the object as body. */
function write(
  operationId: string,
  action: 'post' | 'put',
  gvk: GroupVersionKind,
  description: string,
  schema: string,
) {
  const responses = { ...ok(schema), ...created(schema), ...(action === 'post' ? accepted(schema) : {}) };
  const requestBody = { content: { '*/*': { schema: ref(schema) } }, required: true };
  return operation({
    operationId,
    action,
    gvk,
    description,
    parameters: WRITE_PARAMS,
    responses,
    requestBody,
  });
}

function patch(operationId: string, gvk: GroupVersionKind, description: string, schema: string): JsonObject {
  const content: JsonObject = {};
  for (const type of PATCH_TYPES) content[type] = { schema: ref(SCHEMA.patch) };
  return operation({
    operationId,
    action: 'patch',
    gvk,
    description,
    parameters: [...WRITE_PARAMS, FORCE_PARAM],
    responses: { ...ok(schema), ...created(schema) },
    requestBody: { content, required: true },
  });
}

/** Strategic merge patch is accepted by the server but not advertised: see the file comment. */
const PATCH_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
];

const DELETE_BODY: JsonObject = { content: { '*/*': { schema: ref(SCHEMA.deleteOptions) } } };

/** `AppsV1`, `CoreV1`, `NetworkingV1`: the group-version word of operation ids. */
function gvWord(gv: { group: string; version: string }): string {
  return `${groupWord(gv.group)}${capitalize(gv.version)}`;
}
function groupWord(group: string): string {
  if (group === '') return 'Core';
  return group
    .replace(/\.k8s\.io$/, '')
    .split('.')
    .map(capitalize)
    .join('');
}
/** Upstream tags: `core_v1`, `apps_v1`, `networking_v1`, `flowcontrolApiserver_v1`. */
function tagOf(gv: { group: string; version: string }): string {
  const word = groupWord(gv.group);
  return `${word.charAt(0).toLowerCase()}${word.slice(1)}_${gv.version}`;
}
function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Drops undefined members (absent operations) so the document stays plain JSON. */
function defined(members: Record<string, JsonObject | JsonObject[] | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(members)) if (value !== undefined) out[key] = value;
  return out;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
