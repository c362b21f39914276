/**
 * The remote command stream protocol of exec and attach over WebSocket (`*.channel.k8s.io`):
 * every message starts with its channel — 0 stdin, 1 stdout, 2 stderr, 3 error (the status at
 * the end), 4 resize (JSON `{"Width":…,"Height":…}`), and in v5 255 "close" (payload: the one
 * channel the client closes, its stdin) — followed by the data.
 *
 * Which subprotocol, as a 1.33 cluster chooses (sources: apiserver pkg/util/proxy websocket.go
 * and translatinghandler.go, the kubelet's cri/streaming/remotecommand websocket.go,
 * apimachinery wsstream/conn.go):
 * - a WebSocket request offering `v5.channel.k8s.io` is answered by kube-apiserver's stream
 *   translator, which only speaks v5 (the client's order does not matter);
 * - any other WebSocket request is proxied to the kubelet, whose server takes the first of the
 *   client's protocols it knows: `v4.channel.k8s.io`, `v4.base64.channel.k8s.io`,
 *   `channel.k8s.io`, `base64.channel.k8s.io`, or none offered (`""`, as channel.k8s.io); an
 *   offer with none of these is refused with 403 (x/net/websocket's handshake).
 * The base64 variants send text messages: the channel as an ASCII digit, then the data in base64.
 * v4 and v5 end with a JSON metav1.Status on channel 3; the older ones with the failure's message
 * as plain text (nothing on success).
 */
import type { WebSocketConnection } from './websocket.ts';

export const STREAM_PROTOCOL_V5 = 'v5.channel.k8s.io';

/** The kubelet's protocols (pkg/kubelet/cri/streaming/remotecommand/websocket.go). */
export const KUBELET_PROTOCOLS = [
  'v4.channel.k8s.io',
  'v4.base64.channel.k8s.io',
  'channel.k8s.io',
  'base64.channel.k8s.io',
] as const;

export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;

export interface Negotiated {
  protocol: string;
  /** Served by the apiserver's translator (v5): errors of the kubelet's come in the stream. */
  translated: boolean;
}

/** The subprotocol a 1.33 cluster picks; undefined: none acceptable (403). */
export function negotiate(offered: readonly string[]): Negotiated | undefined {
  if (offered.includes(STREAM_PROTOCOL_V5)) return { protocol: STREAM_PROTOCOL_V5, translated: true };
  if (offered.length === 0) return { protocol: '', translated: false };
  const known = offered.find((p) => (KUBELET_PROTOCOLS as readonly string[]).includes(p));
  return known === undefined ? undefined : { protocol: known, translated: false };
}

const isBase64 = (protocol: string) => protocol.includes('base64.');
const statusAsJson = (protocol: string) => protocol.startsWith('v4.') || protocol === STREAM_PROTOCOL_V5;

/** A metav1.Status as the error channel carries it: json.Marshal of the Go struct (no kind). */
export interface StreamStatus {
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { causes: { reason?: string; message: string }[] };
  code?: number;
}

export const streamStatus = {
  success: (): StreamStatus => ({ metadata: {}, status: 'Success' }),
  /**
   * A command's non-zero exit (kubelet cri/streaming/remotecommand exec.go; reason and cause type
   * from apimachinery util/remotecommand: NonZeroExitCode, ExitCode). `message` is the error's text.
   */
  exitCode: (code: number, message: string): StreamStatus => ({
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: ${message}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  }),
  /** apierrors.NewInternalError(err). */
  internal: (error: string): StreamStatus => ({
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${error}`,
    reason: 'InternalError',
    details: { causes: [{ message: error }] },
    code: 500,
  }),
};

/**
 * Reads a stream of JSON terminal sizes as Go's json.Decoder does (values back to back, split
 * across messages or not; field names matched case-insensitively, so client-go's `Width` and
 * client-node's `width` both work). After a value that does not decode, it reads no more.
 */
export class ResizeDecoder {
  private text = '';
  private broken = false;

  push(chunk: string): { width: number; height: number }[] {
    if (this.broken) return [];
    this.text += chunk;
    const sizes: { width: number; height: number }[] = [];
    for (;;) {
      this.text = this.text.trimStart();
      if (this.text === '') return sizes;
      const end = jsonValueEnd(this.text);
      if (end === undefined) return sizes;
      let value: unknown;
      try {
        value = JSON.parse(this.text.slice(0, end));
      } catch {
        value = undefined;
      }
      this.text = this.text.slice(end);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        this.broken = true;
        return sizes;
      }
      const field = (name: string) => {
        const entry = Object.entries(value as Record<string, unknown>).find(
          ([k]) => k.toLowerCase() === name,
        );
        return typeof entry?.[1] === 'number' ? entry[1] : 0;
      };
      sizes.push({ width: field('width'), height: field('height') });
    }
  }
}

/** Where the first JSON value of `text` ends (an object, by its braces); undefined: not complete. */
function jsonValueEnd(text: string): number | undefined {
  if (text[0] !== '{') return text.length; // not an object: let JSON.parse fail on it
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i + 1;
  }
  return undefined;
}

export interface StreamHandlers {
  stdin(data: Buffer): void;
  /** v5: the client closed its stdin. */
  stdinClosed(): void;
  resize(width: number, height: number): void;
}

/**
 * The channels over one WebSocket connection. `write` sends output (a channel the client did not
 * ask for is dropped by the caller); `finish` sends the status and closes the connection.
 */
export class RemoteCommandStream {
  private readonly base64: boolean;
  private readonly resizes = new ResizeDecoder();
  private finished = false;

  constructor(
    readonly connection: WebSocketConnection,
    handlers: StreamHandlers,
  ) {
    const protocol = connection.protocol;
    this.base64 = isBase64(protocol);
    connection.onMessage(({ data }) => {
      if (data.length === 0) return;
      const channel = this.base64 ? data[0]! - 0x30 : data[0]!;
      let payload = data.subarray(1);
      if (this.base64) payload = Buffer.from(payload.toString('latin1'), 'base64');
      if (channel === CHANNEL.close && protocol === STREAM_PROTOCOL_V5) {
        // wsstream: a close signal names exactly one channel; only stdin is the client's to close.
        if (payload.length === 1 && payload[0] === CHANNEL.stdin) handlers.stdinClosed();
        return;
      }
      if (channel === CHANNEL.stdin) handlers.stdin(payload);
      else if (channel === CHANNEL.resize)
        for (const size of this.resizes.push(payload.toString('utf8')))
          handlers.resize(size.width, size.height);
    });
  }

  get protocol(): string {
    return this.connection.protocol;
  }

  write(channel: number, data: Buffer): void {
    if (this.finished) return;
    if (this.base64) this.connection.send(String.fromCharCode(0x30 + channel) + data.toString('base64'));
    else this.connection.send(Buffer.concat([Buffer.from([channel]), data]));
  }

  /** Reports how it ended on the error channel and closes the connection (code 1000). */
  finish(status: StreamStatus): void {
    if (this.finished) return;
    if (statusAsJson(this.protocol)) this.write(CHANNEL.error, Buffer.from(JSON.stringify(status)));
    else if (status.status === 'Failure') this.write(CHANNEL.error, Buffer.from(status.message ?? ''));
    this.finished = true;
    this.connection.close();
  }
}
