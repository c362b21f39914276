/**
 * The simulator's HTTP front: parses the request, applies injected faults, dispatches to the API
 * service (or discovery, OpenAPI, watch, admin), writes JSON answers and Status errors the way
 * kube-apiserver does, and records every request in the request log.
 */
import { createServer, type IncomingMessage, type Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { parse as parseYaml } from 'yaml';
import { type DeleteOptions, deletedStatus } from '../api/deletion.ts';
import { type ApiService, PATCH_TYPES } from '../api/service.ts';
import { StatusError, statusErrors } from '../errors.ts';
import { negotiateOutput } from '../printing/negotiate.ts';
import { convertRead, watchEncoder } from '../printing/respond.ts';
import { decodeProtobuf } from '../protobuf/decode.ts';
import { servedGroupVersions } from '../resources.ts';
import { duplicateFields } from '../schema/duplicate-fields.ts';
import { numberLiterals } from '../schema/number-literals.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { isPlainObject } from '../types.ts';
import {
  AGGREGATED_DISCOVERY_CONTENT_TYPE,
  aggregatedDiscovery,
  apiGroupList,
  apiResourceList,
  apiVersions,
  openApiV3Document,
  openApiV3Index,
  versionInfo,
  wantsAggregatedDiscovery,
} from './discovery.ts';
import type { Faults } from './faults.ts';
import type { PodStreamKind, Traffic } from './pod-stream.ts';
import type { RequestLog, RequestRecord, Verb } from './request-log.ts';
import { type Route, route } from './router.ts';
import { type ActiveWatch, startWatch } from './watch.ts';

/** kube-apiserver's MaxRequestBodyBytes. */
export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

export interface HttpServerDeps {
  service: ApiService;
  store: ObjectStore;
  log: RequestLog;
  faults: Faults;
  /** Handles `/__sim/...`; returns a JSON-serializable answer. */
  admin(method: string, path: string[], query: URLSearchParams, body: unknown): Promise<unknown> | unknown;
  /** Answers `pods/<name>/log` itself (plain text; `follow=true` streams until the pod ends). */
  podLog(namespace: string, name: string, query: URLSearchParams, res: ServerResponse): void;
  /**
   * Serves `pods/<name>/exec` and `pods/<name>/attach` (pod-stream.ts): throws a StatusError to
   * refuse, or answers, or takes the connection over (`upgrade`: the socket of an upgrade request).
   */
  podStream(request: {
    kind: PodStreamKind;
    namespace: string;
    name: string;
    query: URLSearchParams;
    req: IncomingMessage;
    res: ServerResponse;
    upgrade?: { socket: Duplex; head: Buffer };
    traffic: Traffic;
  }): void;
  watchTimeoutSeconds: number;
  bookmarkIntervalMs: number;
  /** Serve aggregated discovery (apidiscovery.k8s.io/v2) to clients that ask for it. */
  aggregatedDiscovery: boolean;
  /**
   * With a state file: resolves when every write so far is on disk (undefined when none is
   * pending). A write is answered only after it, so "created" means "survives a crash".
   */
  durable?: () => Promise<void> | undefined;
  /** Serve HTTPS with this key and certificate (PEM) instead of plain HTTP. */
  tls?: { key: string; cert: string };
  /**
   * Authentication and authorization before routing (auth/request-auth.ts): returns the user or
   * throws the 401/403 StatusError, calling `authenticated` with the user's name first (so a
   * refused request is logged with who asked); `create` answers the review kinds and TokenRequest.
   */
  auth?: {
    check(
      req: IncomingMessage,
      r: Route,
      verb: Verb,
      path: string,
      query: URLSearchParams,
      authenticated?: (username: string) => void,
    ): unknown;
    create(r: Route & { kind: 'resource' }, body: unknown, user: unknown): unknown;
  };
}

export interface HttpServer {
  url: string;
  port: number;
  /** Ends every open watch abruptly (fault injection: dropped watches). */
  dropWatches(): number;
  close(): Promise<void>;
}

class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly contentType = 'application/json',
    readonly headers: Record<string, string> = {},
  ) {}
}

/** An upgrade request's connection, taken from the HTTP server's `upgrade` event. */
interface Upgrade {
  socket: Duplex;
  head: Buffer;
}

const isPodStream = (r: Route): r is Route & { kind: 'resource'; subresource: PodStreamKind } =>
  r.kind === 'resource' && (r.subresource === 'exec' || r.subresource === 'attach');

function verbOf(method: string, r: Route, query: URLSearchParams): Verb {
  if (r.kind !== 'resource') return 'other';
  // exec and attach too, as kube-apiserver 1.33's RequestInfo has them: a WebSocket GET is a get, a
  // SPDY POST a create. (1.35 adds a check that a GET's user may also create the subresource,
  // AuthorizePodWebsocketUpgradeCreatePermission; the request's verb stays get.)
  const item = r.name !== undefined;
  switch (method) {
    case 'GET':
      if (item) return 'get';
      return query.get('watch') === 'true' || query.get('watch') === '1' ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return item ? 'delete' : 'deletecollection';
    default:
      return 'other';
  }
}

async function readBody(req: IncomingMessage, onChunk: (bytes: number) => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    onChunk((chunk as Buffer).length);
    if (size > MAX_REQUEST_BYTES) throw statusErrors.requestEntityTooLarge(MAX_REQUEST_BYTES);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function parseBody(
  raw: Buffer,
  contentType: string | undefined,
  isPatch: boolean,
  duplicates?: string[],
  literals?: Map<string, string>,
): unknown {
  const type = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (raw.length === 0) return undefined;
  // Typed client-go clients (kubectl create, helm's release storage) send protobuf.
  if (type === 'application/vnd.kubernetes.protobuf') return decodeProtobuf(raw);
  const text = raw.toString('utf8');
  const yaml = type === PATCH_TYPES.apply || type === 'application/yaml';
  if (!isPatch && !['application/json', 'application/yaml', '*/*', ''].includes(type)) {
    throw statusErrors.unsupportedMediaType(type, [
      'application/json',
      'application/yaml',
      'application/vnd.kubernetes.protobuf',
    ]);
  }
  try {
    const value: unknown = yaml ? parseYaml(text) : JSON.parse(text);
    if (!yaml && !isPatch && duplicates) duplicates.push(...duplicateFields(text));
    if (!yaml && !isPatch && literals) for (const [k, v] of numberLiterals(text)) literals.set(k, v);
    return value;
  } catch (err) {
    throw statusErrors.badRequest(`the request body could not be decoded: ${(err as Error).message}`);
  }
}

function deleteOptionsFrom(query: URLSearchParams, body: unknown): DeleteOptions {
  const options: DeleteOptions = {};
  const b = isPlainObject(body) ? body : {};
  const policy =
    query.get('propagationPolicy') ??
    (typeof b.propagationPolicy === 'string' ? b.propagationPolicy : undefined);
  if (policy !== undefined) {
    if (!['Orphan', 'Background', 'Foreground'].includes(policy)) {
      throw statusErrors.badRequest(
        `propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
      );
    }
    options.propagationPolicy = policy as DeleteOptions['propagationPolicy'] & string;
  }
  const orphan =
    query.get('orphanDependents') ??
    (typeof b.orphanDependents === 'boolean' ? String(b.orphanDependents) : undefined);
  if (orphan !== undefined) options.orphanDependents = orphan === 'true';
  if (options.propagationPolicy && options.orphanDependents !== undefined) {
    throw statusErrors.badRequest(
      'orphanDependents: Invalid value: "true": orphanDependents and deletionPropagation cannot be both set',
    );
  }
  if (isPlainObject(b.preconditions)) {
    const pre = b.preconditions;
    options.preconditions = {
      ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
      ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
    };
  }
  const dryRun = query.getAll('dryRun').length > 0 || (Array.isArray(b.dryRun) && b.dryRun.length > 0);
  if (dryRun) options.dryRun = true;
  const grace =
    query.get('gracePeriodSeconds') ??
    (typeof b.gracePeriodSeconds === 'number' ? String(b.gracePeriodSeconds) : undefined);
  if (grace !== undefined) options.gracePeriodSeconds = Number(grace);
  return options;
}

export async function startHttpServer(deps: HttpServerDeps, host: string, port: number): Promise<HttpServer> {
  const watches = new Set<ActiveWatch>();
  const sockets = new Set<Socket>();
  let baseUrl = '';
  let serverAddress = '';

  async function dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    r: Route,
    query: URLSearchParams,
    verb: Verb,
    warnings: string[],
    /** The request body, read from the moment the request arrived. */
    received: Promise<Buffer>,
    upgrade: Upgrade | undefined,
    traffic: Traffic,
    user: unknown,
  ): Promise<HttpAnswer | undefined> {
    const method = req.method ?? 'GET';
    switch (r.kind) {
      case 'version':
        return new HttpAnswer(200, versionInfo());
      case 'api':
      case 'apis': {
        // The answer depends on Accept (aggregated or legacy discovery): caches must know.
        const vary = { Vary: 'Accept' };
        if (deps.aggregatedDiscovery && wantsAggregatedDiscovery(req.headers.accept)) {
          return new HttpAnswer(200, aggregatedDiscovery(r.kind), AGGREGATED_DISCOVERY_CONTENT_TYPE, vary);
        }
        return new HttpAnswer(
          200,
          r.kind === 'api' ? apiVersions(serverAddress) : apiGroupList(),
          'application/json',
          vary,
        );
      }
      case 'group': {
        const group = apiGroupList().groups.find((g) => g.name === r.group);
        if (!group) throw notFoundPath();
        return new HttpAnswer(200, { kind: 'APIGroup', apiVersion: 'v1', ...group });
      }
      case 'resource-list': {
        if (!servedGroupVersions().some((gv) => gv.group === r.group && gv.version === r.version))
          throw notFoundPath();
        return new HttpAnswer(200, apiResourceList(r.group, r.version));
      }
      case 'openapi-v3-index':
        return new HttpAnswer(200, openApiV3Index());
      case 'openapi-v3': {
        const doc = openApiV3Document(r.path);
        if (!doc) throw notFoundPath();
        return new HttpAnswer(200, doc);
      }
      case 'health':
        return new HttpAnswer(200, 'ok', 'text/plain; charset=utf-8');
      case 'metrics':
        return new HttpAnswer(200, deps.log.metrics.text(), 'text/plain; version=0.0.4; charset=utf-8');
      case 'admin': {
        const raw = method === 'GET' ? Buffer.alloc(0) : await received;
        let body: unknown;
        try {
          body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
        } catch (err) {
          throw statusErrors.badRequest(`the request body is not JSON: ${(err as Error).message}`);
        }
        return new HttpAnswer(200, await deps.admin(method, r.path, query, body));
      }
      case 'not-found':
        throw notFoundPath();
      case 'resource':
        break;
    }
    const apiReq = {
      type: r.type,
      ...(r.namespace !== undefined ? { namespace: r.namespace } : {}),
      ...(r.name !== undefined ? { name: r.name } : {}),
      ...(r.subresource !== undefined ? { subresource: r.subresource } : {}),
      query,
      ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
      warnings,
    };
    // Collections of a cluster-scoped type cannot be addressed inside a namespace, and vice versa.
    if (!r.type.namespaced && r.namespace !== undefined) throw notFoundPath();
    const sub = r.type.subresources.find((s) => s.name === r.subresource);
    if (sub && !sub.verbs.includes(verb === 'update' ? 'update' : verb))
      throw statusErrors.methodNotAllowed();
    if (!sub && !r.type.verbs.includes(verb)) throw statusErrors.methodNotAllowed();
    if (isPodStream(r)) {
      deps.podStream({
        kind: r.subresource,
        namespace: r.namespace!,
        name: r.name!,
        query,
        req,
        res,
        ...(upgrade ? { upgrade } : {}),
        traffic,
      });
      return undefined;
    }
    // Server-side printing: reads of the object itself may be answered as a meta.k8s.io Table
    // (or as PartialObjectMetadata), as the Accept header negotiates.
    const output =
      (verb === 'get' || verb === 'list' || verb === 'watch') && r.subresource === undefined
        ? negotiateOutput(req.headers.accept)
        : 'object';
    switch (verb) {
      case 'get':
        if (output !== 'object')
          return new HttpAnswer(200, convertRead(output, r.type, deps.service.get(apiReq), query));
        if (r.subresource === 'log') {
          deps.service.get({ ...apiReq, subresource: undefined } as typeof apiReq);
          deps.podLog(r.namespace!, r.name!, query, res);
          return undefined;
        }
        return new HttpAnswer(200, deps.service.get(apiReq));
      case 'list': {
        const list = deps.service.list(apiReq);
        return new HttpAnswer(200, convertRead(output, r.type, list, query));
      }
      case 'watch': {
        const watch = startWatch(
          deps.store,
          res,
          {
            type: r.type,
            ...(r.namespace !== undefined ? { namespace: r.namespace } : {}),
            query,
            defaultTimeoutSeconds: deps.watchTimeoutSeconds,
            bookmarkIntervalMs: deps.bookmarkIntervalMs,
            encode: watchEncoder(output, r.type, query),
          },
          () => watches.delete(watch),
        );
        watches.add(watch);
        return undefined;
      }
      case 'create': {
        if (r.subresource === 'token' && deps.auth) {
          const body = parseBody(await received, req.headers['content-type'], false);
          return new HttpAnswer(201, deps.auth.create(r, body, user));
        }
        if (r.name !== undefined) throw statusErrors.methodNotAllowed();
        const duplicates: string[] = [];
        const numbers = new Map<string, string>();
        const body = parseBody(await received, req.headers['content-type'], false, duplicates, numbers);
        const review = deps.auth?.create(r, body, user);
        if (review !== undefined) return new HttpAnswer(201, review);
        const created = deps.service.create(
          { ...apiReq, duplicateFields: duplicates, numberLiterals: numbers },
          body,
        );
        return new HttpAnswer(201, created);
      }
      case 'update': {
        if (r.name === undefined) throw statusErrors.methodNotAllowed();
        const duplicates: string[] = [];
        const numbers = new Map<string, string>();
        const body = parseBody(await received, req.headers['content-type'], false, duplicates, numbers);
        return new HttpAnswer(
          200,
          deps.service.update({ ...apiReq, duplicateFields: duplicates, numberLiterals: numbers }, body),
        );
      }
      case 'patch': {
        if (r.name === undefined) throw statusErrors.methodNotAllowed();
        const contentType = req.headers['content-type'] ?? '';
        const body = parseBody(await received, contentType, true);
        const before = deps.store.get(`${r.type.group}/${r.type.plural}`, r.namespace, r.name);
        const patched = deps.service.patch(apiReq, contentType, body);
        // Apply creating the object answers 201, like create.
        return new HttpAnswer(before ? 200 : 201, patched);
      }
      case 'delete': {
        const raw = await received;
        const body = raw.length > 0 ? parseBody(raw, req.headers['content-type'], false) : undefined;
        const result = deps.service.delete(apiReq, deleteOptionsFrom(query, body));
        return new HttpAnswer(
          result.code,
          result.gone ? deletedStatus(r.type, result.object) : result.object,
        );
      }
      case 'deletecollection': {
        const raw = await received;
        const body = raw.length > 0 ? parseBody(raw, req.headers['content-type'], false) : undefined;
        return new HttpAnswer(200, deps.service.deleteCollection(apiReq, deleteOptionsFrom(query, body)));
      }
      default:
        throw statusErrors.methodNotAllowed();
    }
  }

  const handle = (req: IncomingMessage, res: ServerResponse, upgrade?: Upgrade) => {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://sim');
    const r = route(url.pathname);
    const query = url.searchParams;
    const verb = verbOf(req.method ?? 'GET', r, query);
    const resource = r.kind === 'resource' ? `${r.type.group}/${r.type.plural}` : '';
    let bytesIn = 0;
    let bytesOut = 0;
    const traffic: Traffic = {
      in: (bytes) => {
        bytesIn += bytes;
      },
      out: (bytes) => {
        bytesOut += bytes;
      },
    };
    // Read as it arrives, before a fault's added latency: a stream read later has lost its data.
    // An upgrade request has no body: what follows its headers belongs to the new protocol.
    // Who asked, once authenticated: the request log records it (also on a 403).
    let username: string | undefined;
    const received = upgrade ? Promise.resolve(Buffer.alloc(0)) : readBody(req, traffic.in);
    received.catch(() => undefined);
    const write = res.write.bind(res);
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) bytesOut += Buffer.byteLength(chunk);
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof res.write;
    const served =
      r.kind === 'admin'
        ? undefined
        : deps.log.opened({
            at: Date.now(),
            verb,
            method: req.method ?? 'GET',
            path: url.pathname,
            resource,
            ...(r.kind === 'resource' && r.subresource ? { subresource: r.subresource } : {}),
            ...(r.kind === 'resource' && r.namespace ? { namespace: r.namespace } : {}),
            ...(r.kind === 'resource' && r.name ? { name: r.name } : {}),
          });
    res.on('close', () => {
      served?.();
      const record: RequestRecord = {
        at: Date.now(),
        verb,
        method: req.method ?? 'GET',
        path: url.pathname,
        resource,
        status: res.statusCode,
        bytesIn,
        bytesOut,
        durationMs: performance.now() - started,
        ...(r.kind === 'resource' && r.subresource ? { subresource: r.subresource } : {}),
        ...(r.kind === 'resource' && r.namespace ? { namespace: r.namespace } : {}),
        ...(r.kind === 'resource' && r.name ? { name: r.name } : {}),
        ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
        ...(username !== undefined ? { user: username } : {}),
        ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
        ...(query.getAll('dryRun').includes('All') ? { dryRun: true } : {}),
      };
      if (r.kind !== 'admin') deps.log.add(record);
    });

    const send = (answer: HttpAnswer, requestWarnings: string[]) => {
      const text =
        typeof answer.body === 'string' && !answer.contentType.startsWith('application/json')
          ? answer.body
          : JSON.stringify(answer.body);
      const headers: Record<string, string | string[]> = {
        ...answer.headers,
        'Content-Type': answer.contentType,
        'Content-Length': String(Buffer.byteLength(text)),
      };
      if (requestWarnings.length > 0)
        headers.Warning = requestWarnings.map((w) => `299 - ${JSON.stringify(w)}`);
      res.writeHead(answer.status, headers);
      bytesOut += Buffer.byteLength(text);
      res.end(text);
    };
    const fail = (err: unknown) => {
      // A request refused before its body was read: drain it, so the connection can go on.
      req.resume();
      const status =
        err instanceof StatusError ? err : statusErrors.internal((err as Error).message ?? String(err));
      // Too late for an answer: the headers went out, or the connection became a WebSocket.
      if (res.headersSent || res.statusCode === 101) {
        res.destroy();
        return;
      }
      for (const [k, v] of Object.entries(status.headers)) res.setHeader(k, v);
      send(new HttpAnswer(status.code, status.toStatus()), []);
    };

    const run = async () => {
      const fault =
        r.kind === 'resource'
          ? deps.faults.decide(verb, resource, r.namespace, r.name)
          : { kind: 'pass' as const, latencyMs: 0 };
      if (fault.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
      if (fault.kind === 'reset') {
        req.socket.destroy();
        return;
      }
      if (fault.kind === 'error') {
        const retry = fault.retryAfterSeconds ?? 1;
        if (fault.status === 429) throw statusErrors.tooManyRequests(retry);
        if (fault.status === 503) {
          const err = statusErrors.serviceUnavailable();
          if (fault.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retry));
          throw err;
        }
        throw statusErrors.internal('injected fault');
      }
      // kube-apiserver's filter chain: authentication, then authorization, then the handler.
      const user =
        r.kind === 'admin'
          ? undefined
          : deps.auth?.check(req, r, verb, url.pathname, query, (name) => {
              username = name;
            });
      const requestWarnings: string[] = [];
      const answering = dispatch(req, res, r, query, verb, requestWarnings, received, upgrade, traffic, user);
      const answer = await (durable ? answering.finally(durable) : answering);
      if (answer) send(answer, requestWarnings);
    };
    // Writes (and failed ones, which may have written part of a collection) wait for the disk.
    const writes = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS';
    const durable = writes ? deps.durable : undefined;
    run().catch(fail);
  };

  const server: Server = deps.tls
    ? createTlsServer(deps.tls, (req, res) => handle(req, res))
    : createServer((req, res) => handle(req, res));
  // Node hands an upgrade request (WebSocket, SPDY) over with its socket and no response object:
  // one is made, so the request goes the same way (faults, Status errors, the request log), and
  // exec and attach may take the socket over. An answer that is not an upgrade ends the connection.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    // As Node ends a `Connection: close` answer: the socket goes once the answer is written.
    res.on('finish', () => (socket as Socket).destroySoon());
    handle(req, res, { socket, head });
  });

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Long-lived watches must not be cut by Node's default request timeouts.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 60_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  baseUrl = `${deps.tls ? 'https' : 'http'}://${host}:${address.port}`;
  serverAddress = `${host}:${address.port}`;
  return {
    url: baseUrl,
    port: address.port,
    dropWatches() {
      const all = [...watches];
      for (const w of all) w.drop();
      return all.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const w of [...watches]) w.close();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {
    causes: [{ reason: 'UnexpectedServerResponse', message: '404 page not found' }],
  });
}
