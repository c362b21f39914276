/**
 * The server side of RFC 6455 WebSocket, as much as the exec and attach subresources need: the
 * opening handshake (`Sec-WebSocket-Accept`, one subprotocol chosen by the caller), masked client
 * frames in, unmasked frames out, fragmented messages, ping → pong, and the closing handshake.
 * No extensions are negotiated (a client offering permessage-deflate gets plain frames, as the
 * RFC allows), so a frame with an RSV bit set is a protocol error.
 *
 * The handshake checks and their answers are golang.org/x/net/websocket's (hybiServerHandshaker
 * ReadHandshake, newServerConn), which kube-apiserver's and the kubelet's websocket servers use:
 * not GET → 405 `bad method`; no `Upgrade: websocket` / `Connection: upgrade` → 400 `not websocket
 * protocol`; no `Sec-WebSocket-Key` → 400 `mismatch challenge/response`; a version other than 13
 * → 400 `bad protocol version` with `Sec-WebSocket-Version: 13`.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** A message larger than this closes the connection (1009): stdin chunks and resizes are small. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** How long a closing connection waits for the peer's close frame before it is cut. */
const CLOSE_WAIT_MS = 5_000;

export const OPCODE = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

export const CLOSE_CODE = { normal: 1000, protocolError: 1002, tooBig: 1009 } as const;

/** Why the opening handshake was refused: the HTTP status and x/net/websocket's text. */
export class HandshakeError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HandshakeError';
  }
}

/** `Upgrade: websocket` with `Connection: upgrade` (wsstream.IsWebSocketRequest). */
export function isWebSocketRequest(req: IncomingMessage): boolean {
  const upgrade = (req.headers.upgrade ?? '').toLowerCase();
  const connection = (req.headers.connection ?? '').toLowerCase();
  return upgrade === 'websocket' && /(^|.*,\s*)upgrade($|\s*,)/.test(connection);
}

/** The subprotocols the client offers, in its order (`Sec-WebSocket-Protocol`, comma separated). */
export function offeredProtocols(req: IncomingMessage): string[] {
  const raw = req.headers['sec-websocket-protocol'];
  const joined = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  return joined
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** Checks the opening handshake as x/net/websocket does; returns the client's key. */
export function checkHandshake(req: IncomingMessage): string {
  if (req.method !== 'GET') throw new HandshakeError(405, 'bad method');
  if (!isWebSocketRequest(req)) throw new HandshakeError(400, 'not websocket protocol');
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || key.trim() === '')
    throw new HandshakeError(400, 'mismatch challenge/response');
  if (req.headers['sec-websocket-version'] !== '13')
    throw new HandshakeError(400, 'bad protocol version', { 'Sec-WebSocket-Version': '13' });
  return key.trim();
}

export function acceptKey(key: string): string {
  return createHash('sha1')
    .update(key + GUID)
    .digest('base64');
}

export interface Frame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

/** One frame, unmasked (server to client) unless a mask is given (client to server, for tests). */
export function encodeFrame(opcode: number, payload: Buffer, mask?: Buffer, fin = true): Buffer {
  const length = payload.length;
  const lengthBytes = length < 126 ? 0 : length < 65_536 ? 2 : 8;
  const header = Buffer.alloc(2 + lengthBytes + (mask ? 4 : 0));
  header[0] = (fin ? 0x80 : 0) | opcode;
  const maskBit = mask ? 0x80 : 0;
  if (lengthBytes === 0) header[1] = maskBit | length;
  else if (lengthBytes === 2) {
    header[1] = maskBit | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = maskBit | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  if (!mask) return Buffer.concat([header, payload]);
  mask.copy(header, 2 + lengthBytes);
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([header, masked]);
}

export class FrameError extends Error {
  constructor(
    readonly closeCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

/**
 * Cuts frames out of a byte stream (pure). `requireMask`: frames from a client must be masked
 * (RFC 6455 5.1); the payload comes out unmasked.
 */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(private readonly requireMask = true) {}

  push(chunk: Buffer): Frame[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: Frame[] = [];
    for (;;) {
      const frame = this.next();
      if (!frame) return frames;
      frames.push(frame);
    }
  }

  private next(): Frame | undefined {
    const b = this.buffered;
    if (b.length < 2) return undefined;
    const fin = (b[0]! & 0x80) !== 0;
    if ((b[0]! & 0x70) !== 0)
      throw new FrameError(CLOSE_CODE.protocolError, 'RSV bits set without an extension');
    const opcode = b[0]! & 0x0f;
    const masked = (b[1]! & 0x80) !== 0;
    if (this.requireMask && !masked)
      throw new FrameError(CLOSE_CODE.protocolError, 'a client frame is not masked');
    let length = b[1]! & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (b.length < 4) return undefined;
      length = b.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (b.length < 10) return undefined;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(MAX_MESSAGE_BYTES)) throw new FrameError(CLOSE_CODE.tooBig, 'frame too large');
      length = Number(big);
      offset = 10;
    }
    if (length > MAX_MESSAGE_BYTES) throw new FrameError(CLOSE_CODE.tooBig, 'frame too large');
    if (opcode >= OPCODE.close && (!fin || length > 125))
      throw new FrameError(CLOSE_CODE.protocolError, 'a control frame is fragmented or too long');
    const maskAt = offset;
    if (masked) offset += 4;
    if (b.length < offset + length) return undefined;
    const payload = Buffer.from(b.subarray(offset, offset + length));
    if (masked) for (let i = 0; i < length; i++) payload[i] = payload[i]! ^ b[maskAt + (i % 4)]!;
    this.buffered = b.subarray(offset + length);
    return { fin, opcode, payload };
  }
}

export interface WebSocketMessage {
  data: Buffer;
  /** A text message (opcode 1); otherwise binary. */
  text: boolean;
}

/**
 * An open WebSocket connection on a socket taken over from the HTTP server. `onMessage` gets
 * whole data messages; pings are answered; `close()` starts the closing handshake; `closed`
 * resolves once the socket is gone, whoever closed it.
 */
export class WebSocketConnection {
  readonly closed: Promise<void>;
  private readonly reader = new FrameReader();
  private listener: ((message: WebSocketMessage) => void) | undefined;
  private fragments: Buffer[] = [];
  private fragmentedText = false;
  private fragmentedBytes = 0;
  private closeSent = false;
  private gone = false;
  private closeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: Duplex,
    readonly protocol: string,
    /** Counts the bytes in and out (the request log's). */
    private readonly traffic: { in(bytes: number): void; out(bytes: number): void } = {
      in: () => undefined,
      out: () => undefined,
    },
  ) {
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        this.gone = true;
        if (this.closeTimer) clearTimeout(this.closeTimer);
        resolve();
      });
    });
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
  }

  /** Writes the 101 answer and wraps the socket; `head` is what arrived after the request's headers. */
  static accept(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    protocol: string,
    traffic?: { in(bytes: number): void; out(bytes: number): void },
  ): WebSocketConnection {
    const key = checkHandshake(req);
    const lines = [
      'HTTP/1.1 101 Switching Protocols',
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Accept: ${acceptKey(key)}`,
      ...(protocol ? [`Sec-WebSocket-Protocol: ${protocol}`] : []),
    ];
    const answer = `${lines.join('\r\n')}\r\n\r\n`;
    socket.write(answer);
    traffic?.out(Buffer.byteLength(answer));
    const connection = new WebSocketConnection(socket, protocol, traffic);
    if (head.length > 0) connection.receive(head);
    return connection;
  }

  get isOpen(): boolean {
    return !this.gone && !this.closeSent;
  }

  onMessage(listener: (message: WebSocketMessage) => void): void {
    this.listener = listener;
  }

  /** A binary message (a Buffer) or a text message (a string); dropped once closing. */
  send(data: Buffer | string): void {
    if (!this.isOpen) return;
    const text = typeof data === 'string';
    this.write(encodeFrame(text ? OPCODE.text : OPCODE.binary, text ? Buffer.from(data, 'utf8') : data));
  }

  /** Sends the close frame and ends the socket once the peer answers (or after a short wait). */
  close(code: number = CLOSE_CODE.normal, reason = ''): void {
    if (this.gone || this.closeSent) return;
    this.closeSent = true;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.write(encodeFrame(OPCODE.close, payload));
    this.socket.end();
    this.closeTimer = setTimeout(() => this.socket.destroy(), CLOSE_WAIT_MS);
    this.closeTimer.unref();
  }

  /** Cuts the connection at once (the simulator stops). */
  destroy(): void {
    this.socket.destroy();
  }

  private write(frame: Buffer): void {
    if (this.gone) return;
    this.socket.write(frame);
    this.traffic.out(frame.length);
  }

  private receive(chunk: Buffer): void {
    this.traffic.in(chunk.length);
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch (err) {
      this.close(err instanceof FrameError ? err.closeCode : CLOSE_CODE.protocolError);
      return;
    }
    for (const frame of frames) this.handle(frame);
  }

  private handle(frame: Frame): void {
    switch (frame.opcode) {
      case OPCODE.ping:
        if (this.isOpen) this.write(encodeFrame(OPCODE.pong, frame.payload));
        return;
      case OPCODE.pong:
        return;
      case OPCODE.close: {
        // Answer with the peer's code (RFC 6455 5.5.1), then the socket ends.
        const code = frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : CLOSE_CODE.normal;
        if (!this.closeSent) this.close(code);
        else this.socket.destroy();
        return;
      }
      case OPCODE.text:
      case OPCODE.binary:
        if (this.fragments.length > 0) {
          this.close(CLOSE_CODE.protocolError);
          return;
        }
        this.fragmentedText = frame.opcode === OPCODE.text;
        break;
      case OPCODE.continuation:
        if (this.fragments.length === 0) {
          this.close(CLOSE_CODE.protocolError);
          return;
        }
        break;
      default:
        this.close(CLOSE_CODE.protocolError);
        return;
    }
    this.fragments.push(frame.payload);
    this.fragmentedBytes += frame.payload.length;
    if (this.fragmentedBytes > MAX_MESSAGE_BYTES) {
      this.close(CLOSE_CODE.tooBig);
      return;
    }
    if (!frame.fin) return;
    const data = this.fragments.length === 1 ? this.fragments[0]! : Buffer.concat(this.fragments);
    this.fragments = [];
    this.fragmentedBytes = 0;
    // Once closing, what the peer still sends is dropped.
    if (!this.closeSent) this.listener?.({ data, text: this.fragmentedText });
  }
}
