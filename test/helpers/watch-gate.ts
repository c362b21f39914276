/**
 * A loopback HTTP proxy in front of the simulator whose watch streams can be held: while closed,
 * the bytes of every watch answer stay in the proxy, and opening the gate sends them on in order.
 * A client behind it sees its watches fall behind the server for as long as the test decides,
 * which is how another worker's write stays out of this one's informer caches (the cache-fence
 * test). Every other request, and every watch the gate is not told to hold, passes straight
 * through.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WatchGate {
  url: string;
  /** Holds watch bytes from now on. */
  close(): void;
  /** Sends what was held, in order, and lets watch bytes through again. */
  open(): void;
  /** Bytes held right now. */
  heldBytes(): number;
  stop(): Promise<void>;
}

/** `holds`: which watches the gate holds, by request path (default: every watch). */
export async function startWatchGate(
  target: string,
  holds: (path: string) => boolean = () => true,
): Promise<WatchGate> {
  const upstream = new URL(target);
  let closed = false;
  const held: { write: () => void; bytes: number }[] = [];
  const server: Server = createServer((req, res) => {
    const watching = /[?&]watch=(true|1)/.test(req.url ?? '');
    const gated = watching && holds(req.url ?? '');
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        // A watch's headers go out at once, as the server sent them: the client waits for them.
        if (watching) res.flushHeaders();
        if (!gated) {
          answer.pipe(res);
          return;
        }
        answer.on('data', (chunk: Buffer) => {
          if (closed) held.push({ write: () => res.write(chunk), bytes: chunk.length });
          else res.write(chunk);
        });
        answer.on('end', () => {
          if (closed) held.push({ write: () => res.end(), bytes: 0 });
          else res.end();
        });
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
    res.on('close', () => forward.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      closed = true;
    },
    open: () => {
      closed = false;
      for (const h of held.splice(0)) h.write();
    },
    heldBytes: () => held.reduce((sum, h) => sum + h.bytes, 0),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
