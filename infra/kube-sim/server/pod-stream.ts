/**
 * `GET|POST /api/v1/namespaces/<ns>/pods/<name>/exec` and `.../attach` over WebSocket: what
 * kube-apiserver, the kubelet and the container runtime answer together, on top of the node
 * runtime's processes (`NodeRuntime.exec`, `NodeRuntime.attach`). docs/kube-sim.md, "attach and
 * exec", has the protocol; remote-command.ts the channels.
 *
 * In upstream's order:
 * 1. the apiserver (pkg/registry/core/pod/rest/subresources.go Connect, strategy.go
 *    streamLocation): the Pod (404), the container (LogLocation's rule: 400 `container x is not
 *    valid for pod p`, or `a container name must be specified …`), a node (400 `pod p does not
 *    have a host assigned`); then an upgrade is required (400 `Upgrade request required`,
 *    UpgradeAwareHandler). Options decode as PodExecOptions/PodAttachOptions query parameters do
 *    (runtime.Convert_Slice_string_To_bool: present and not `0`/`false` is true).
 * 2. A WebSocket request offering v5.channel.k8s.io is upgraded by the apiserver's stream
 *    translator first (apiserver pkg/util/proxy streamtranslator.go), so what the kubelet refuses
 *    next arrives in the stream: an InternalError Status `Internal error occurred: unable to
 *    upgrade connection: <kubelet's text>` on the error channel. Any other request reaches the
 *    kubelet, whose refusals are plain-text HTTP answers (server.go getExec/getAttach,
 *    cri/streaming WriteError): 400 `you must specify at least 1 of stdin, stdout, stderr`, 500
 *    `container not found ("c")` (exec) or `container c not found in pod p_ns` (attach) when the
 *    container is not running (kubelet_pods.go GetExec/GetAttach) — then the kubelet's own
 *    WebSocket handshake (remote-command.ts `negotiate`). SPDY (kubectl with
 *    KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false) is not simulated: 400 saying so.
 * 3. The session: exec runs a new process in the container with the command; attach joins the
 *    container's main process (its output from now on). Output goes to the channels the client
 *    asked for (a tty has stdout only: the kubelet drops stderr with tty); stdin and resizes go to
 *    the process. exec ends when its process exits, with Success or NonZeroExitCode; attach when
 *    the container's process exits, or the client closes its stdin (containerd's cio attach: with
 *    `stdinOnce` and no tty that closes the container's stdin instead and the session goes on),
 *    always with Success — the kubelet reports no exit code for attach. A client that goes away
 *    detaches (attach; `stdinOnce` closes the container's stdin) or hangs up the exec'd process
 *    (SIGHUP).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { statusErrors } from '../errors.ts';
import { findByKind } from '../resources.ts';
import type { NodeRuntime } from '../runtime/node-runtime.ts';
import type { ContainerProcess } from '../runtime/process.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import { chooseContainer } from './pod-log.ts';
import { POD_TYPE_KEY, type PodShape } from './pod-log-lines.ts';
import {
  CHANNEL,
  negotiate,
  RemoteCommandStream,
  STREAM_PROTOCOL_V5,
  type StreamHandlers,
  type StreamStatus,
  streamStatus,
} from './remote-command.ts';
import {
  checkHandshake,
  HandshakeError,
  isWebSocketRequest,
  offeredProtocols,
  WebSocketConnection,
} from './websocket.ts';

const POD = findByKind('v1', 'Pod')!;

export type PodStreamKind = 'exec' | 'attach';

export interface PodStreamContext {
  store: ObjectStore;
  /** The node's containers (absent: nothing runs, so no container is found). */
  runtime?: NodeRuntime;
}

export interface Traffic {
  in(bytes: number): void;
  out(bytes: number): void;
}

export interface PodStreamRequest {
  kind: PodStreamKind;
  namespace: string;
  name: string;
  query: URLSearchParams;
  req: IncomingMessage;
  res: ServerResponse;
  /** The connection, when the request asked to upgrade (the HTTP server's `upgrade` event). */
  upgrade?: { socket: Duplex; head: Buffer };
  traffic: Traffic;
}

interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  command: string[];
}

/** runtime.Convert_Slice_string_To_bool: a parameter that is present is true unless `0` or `false`. */
function boolParam(query: URLSearchParams, name: string): boolean {
  const values = query.getAll(name);
  if (values.length === 0) return false;
  const first = values[0]!;
  return !(first === '0' || first.toLowerCase() === 'false');
}

/** httpstream.IsUpgradeRequest: a Connection header naming upgrade. */
function isUpgradeRequest(req: IncomingMessage): boolean {
  return (req.headers.connection ?? '').toLowerCase().includes('upgrade');
}

function answerText(
  res: ServerResponse,
  traffic: Traffic,
  status: number,
  text: string,
  headers: Record<string, string> = {},
) {
  traffic.out(Buffer.byteLength(text));
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

interface KubeletRefusal {
  status: number;
  text: string;
}

/** What the kubelet refuses before the stream starts; undefined: it goes ahead. */
function kubeletRefusal(
  ctx: PodStreamContext,
  kind: PodStreamKind,
  pod: KubeObject,
  container: string,
  options: StreamOptions,
): KubeletRefusal | undefined {
  // remotecommand NewOptions: stderr is dropped with a tty.
  if (!options.stdin && !options.stdout && !(options.stderr && !options.tty))
    return { status: 400, text: 'you must specify at least 1 of stdin, stdout, stderr' };
  if (ctx.runtime?.running(pod.metadata.uid ?? '', container)) return undefined;
  const { name, namespace } = pod.metadata;
  return {
    status: 500,
    text:
      kind === 'exec'
        ? `container not found (${JSON.stringify(container)})`
        : `container ${container} not found in pod ${name}_${namespace}`,
  };
}

/** The first message on the lowest writable channel: the client knows the stream is up. */
function announce(stream: RemoteCommandStream, stdout: boolean, stderr: boolean): void {
  const channel = stdout ? CHANNEL.stdout : stderr ? CHANNEL.stderr : CHANNEL.error;
  stream.write(channel, Buffer.alloc(0));
}

/**
 * Serves one exec or attach request. Throws a StatusError for what the apiserver refuses (the HTTP
 * server answers it); writes the kubelet's refusals itself; otherwise takes the connection over.
 */
export function servePodStream(ctx: PodStreamContext, request: PodStreamRequest): void {
  const { kind, namespace, name, query, req, res, upgrade } = request;
  if (req.method !== 'GET' && req.method !== 'POST') throw statusErrors.methodNotAllowed();
  const pod = ctx.store.get(POD_TYPE_KEY, namespace, name);
  if (!pod) throw statusErrors.notFound(POD, name);
  const shape = pod as PodShape & KubeObject;
  const container = chooseContainer(shape, name, query.get('container'));
  if (!shape.spec?.nodeName) throw statusErrors.badRequest(`pod ${name} does not have a host assigned`);
  const options: StreamOptions = {
    stdin: boolParam(query, 'stdin'),
    stdout: boolParam(query, 'stdout'),
    stderr: boolParam(query, 'stderr'),
    tty: boolParam(query, 'tty'),
    command: kind === 'exec' ? query.getAll('command') : [],
  };
  if (!isUpgradeRequest(req)) throw statusErrors.badRequest('Upgrade request required');

  const webSocket = upgrade !== undefined && isWebSocketRequest(req);
  const offered = offeredProtocols(req);
  if (webSocket && offered.includes(STREAM_PROTOCOL_V5)) {
    // The apiserver's translator: upgrade first, the kubelet's answer comes in the stream.
    let connection: WebSocketConnection;
    try {
      connection = WebSocketConnection.accept(
        req,
        upgrade.socket,
        upgrade.head,
        STREAM_PROTOCOL_V5,
        request.traffic,
      );
    } catch (err) {
      if (err instanceof HandshakeError) {
        answerText(res, request.traffic, err.status, err.message, err.headers);
        return;
      }
      throw err;
    }
    res.statusCode = 101;
    const session = new Session(ctx, kind, pod, container, options, true);
    const stream = new RemoteCommandStream(connection, session.handlers);
    announce(stream, options.stdout, options.stderr);
    const refused = kubeletRefusal(ctx, kind, pod, container, options);
    if (refused) {
      stream.finish(streamStatus.internal(`unable to upgrade connection: ${refused.text}`));
      return;
    }
    session.start(stream);
    return;
  }

  const refused = kubeletRefusal(ctx, kind, pod, container, options);
  if (refused) {
    answerText(res, request.traffic, refused.status, refused.text);
    return;
  }
  if (!webSocket) {
    throw statusErrors.badRequest(
      `kube-sim serves ${kind} over WebSocket only (v5.channel.k8s.io, v4.channel.k8s.io, channel.k8s.io): ` +
        `the ${req.headers.upgrade ?? 'requested'} upgrade is not simulated` +
        (String(req.headers.upgrade).toUpperCase().startsWith('SPDY')
          ? ' (kubectl uses WebSocket unless KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false)'
          : ''),
    );
  }
  // The kubelet's WebSocket server: x/net/websocket's handshake, then its protocols.
  try {
    checkHandshake(req);
  } catch (err) {
    if (err instanceof HandshakeError) {
      answerText(res, request.traffic, err.status, err.message, err.headers);
      return;
    }
    throw err;
  }
  const negotiated = negotiate(offered);
  if (!negotiated) {
    answerText(res, request.traffic, 403, '');
    return;
  }
  const connection = WebSocketConnection.accept(
    req,
    upgrade.socket,
    upgrade.head,
    negotiated.protocol,
    request.traffic,
  );
  res.statusCode = 101;
  const session = new Session(ctx, kind, pod, container, options, false);
  const stream = new RemoteCommandStream(connection, session.handlers);
  announce(stream, options.stdout, options.stderr && !options.tty);
  session.start(stream);
}

/** One exec or attach session: a process's streams joined to a RemoteCommandStream. */
class Session {
  readonly handlers: StreamHandlers;
  private process: ContainerProcess | undefined;
  private stream: RemoteCommandStream | undefined;
  private ended = false;
  private readonly cleanups: (() => void)[] = [];

  constructor(
    private readonly ctx: PodStreamContext,
    private readonly kind: PodStreamKind,
    private readonly pod: KubeObject,
    private readonly container: string,
    private readonly options: StreamOptions,
    /** Through the apiserver's translator (v5): its wording of an exit code. */
    private readonly translated: boolean,
  ) {
    // Before start() nothing is connected: what arrives is dropped.
    this.handlers = {
      stdin: (data) => {
        if (this.options.stdin) this.process?.write(data);
      },
      stdinClosed: () => this.stdinClosed(),
      resize: (width, height) => {
        if (this.options.tty) this.process?.resize(width, height);
      },
    };
  }

  start(stream: RemoteCommandStream): void {
    this.stream = stream;
    const runtime = this.ctx.runtime!;
    const uid = this.pod.metadata.uid ?? '';
    if (this.kind === 'exec') {
      const process = runtime.exec(uid, this.container, this.options.command, {
        stdin: this.options.stdin,
        tty: this.options.tty,
      })!;
      this.process = process;
      this.relayOutput(process);
      process.exited.then(({ exitCode }) => this.end(this.exitStatus(exitCode)));
      stream.connection.closed.then(() => {
        if (!this.ended) process.kill('SIGHUP');
        this.end();
      });
      return;
    }
    const attachment = runtime.attach(uid, this.container)!;
    this.process = attachment.process;
    this.cleanups.push(() => attachment.detach());
    this.relayOutput(attachment.process);
    attachment.process.exited.then(() => this.end(streamStatus.success()));
    stream.connection.closed.then(() => this.end());
  }

  private relayOutput(process: ContainerProcess): void {
    const stderr = this.options.stderr && !this.options.tty;
    this.cleanups.push(
      process.onOutput((which, chunk) => {
        if (which === 'stdout' && this.options.stdout) this.stream?.write(CHANNEL.stdout, chunk);
        else if (which === 'stderr' && stderr) this.stream?.write(CHANNEL.stderr, chunk);
      }),
    );
  }

  private stdinClosed(): void {
    if (!this.options.stdin || !this.process) return;
    if (this.kind === 'exec') {
      this.process.endInput();
      return;
    }
    // containerd's cio attach: with stdinOnce (and no tty) the container's stdin closes and the
    // output goes on; otherwise the end of the client's input ends the session.
    const slot = this.ctx.runtime?.container(this.pod.metadata.uid ?? '', this.container);
    if (slot?.stdinOnce && !this.process.tty) this.process.endInput();
    else this.end(streamStatus.success());
  }

  private exitStatus(exitCode: number): StreamStatus {
    if (exitCode === 0) return streamStatus.success();
    // The translator's CodeExitError text (client-go errorDecoderV4), or containerd's.
    const text = this.translated
      ? `command terminated with exit code ${exitCode}`
      : `error executing command [${this.options.command.join(' ')}], exit code ${exitCode}`;
    return streamStatus.exitCode(exitCode, text);
  }

  /** Stops relaying; with a status, reports it and closes the connection. */
  private end(status?: StreamStatus): void {
    if (this.ended) return;
    this.ended = true;
    for (const cleanup of this.cleanups) cleanup();
    if (status) this.stream?.finish(status);
  }
}
