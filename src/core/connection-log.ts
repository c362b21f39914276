/**
 * Redis connection errors of a long-running process, routed into its JSON log with a back-off.
 *
 * ioredis emits an `error` event on every failed reconnection attempt of every client (a worker
 * has four: its own, BullMQ's two, the cancel subscriber), and prints `[ioredis] Unhandled error
 * event` itself for a client nobody listens to. Every connection a process creates is watched
 * here instead: the first error of an outage is logged at once, later ones at most once per
 * interval that doubles up to a minute (with the number of errors in between), and the end of
 * the outage once. A Redis outage of a few seconds gives a few log lines, not several a second.
 */
import type { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { Logger } from './logger.ts';
import { describeRedisError, isConnectionError, redisAddress } from './redis.ts';

const FIRST_REPEAT_MS = 1_000;
const MAX_REPEAT_MS = 60_000;

export class ConnectionLog {
  private outageSince: number | undefined;
  private nextLineAt = 0;
  private repeatMs = FIRST_REPEAT_MS;
  private suppressed = 0;
  private readonly address: string;
  private muted = false;

  constructor(
    private readonly logger: Logger,
    url: string,
    private readonly now: () => number = Date.now,
  ) {
    this.address = redisAddress(url);
  }

  get inOutage(): boolean {
    return this.outageSince !== undefined;
  }

  /** Reports a connection error of the client named `connection`, subject to the back-off. */
  error(err: Error, connection: string): void {
    if (this.muted) return;
    if (!isConnectionError(err)) {
      // Not an outage (a command refused, a protocol error): worth a line of its own.
      this.logger.error({ redis: this.address, connection, err: err.message }, 'Redis client error');
      return;
    }
    const now = this.now();
    if (this.outageSince === undefined) {
      this.outageSince = now;
      this.repeatMs = FIRST_REPEAT_MS;
      this.nextLineAt = now + this.repeatMs;
      this.suppressed = 0;
      this.logger.warn(
        { redis: this.address, connection, err: describeRedisError(err) },
        `Redis at ${this.address} is unreachable (${describeRedisError(err)}); reconnecting`,
      );
      return;
    }
    if (now < this.nextLineAt) {
      this.suppressed += 1;
      return;
    }
    this.logger.warn(
      {
        redis: this.address,
        connection,
        err: describeRedisError(err),
        downForMs: now - this.outageSince,
        errorsSinceLastLine: this.suppressed + 1,
      },
      `Redis at ${this.address} is still unreachable after ${Math.round((now - this.outageSince) / 1000)} s; reconnecting`,
    );
    this.suppressed = 0;
    this.repeatMs = Math.min(this.repeatMs * 2, MAX_REPEAT_MS);
    this.nextLineAt = now + this.repeatMs;
  }

  /** A watched client is connected (again): ends the outage, if there was one. */
  ready(connection: string): void {
    if (this.muted || this.outageSince === undefined) return;
    this.logger.info(
      { redis: this.address, connection, downForMs: this.now() - this.outageSince },
      `connected to Redis at ${this.address} again`,
    );
    this.outageSince = undefined;
  }

  /** Stops reporting: the process is closing its connections on purpose. */
  mute(): void {
    this.muted = true;
  }

  /** Routes a client's `error` and `ready` events here (it never prints on its own again). */
  watch(client: Redis, connection: string): Redis {
    client.on('error', (err: Error) => this.error(err, connection));
    client.on('ready', () => this.ready(connection));
    return client;
  }

  /**
   * Routes the `error` events of a BullMQ object (Worker, Queue): connection errors through the
   * back-off, anything else to `onOther` (a real failure, logged in full). For an object on a
   * client already watched (a Queue sharing it), `sharesWatchedClient` drops its connection
   * errors: they are the client's own, forwarded, and already counted.
   */
  watchBull(
    emitter: EventEmitter,
    connection: string,
    onOther: (err: Error) => void,
    sharesWatchedClient = false,
  ): void {
    emitter.on('error', (err: Error) => {
      if (!isConnectionError(err)) onOther(err);
      else if (!sharesWatchedClient) this.error(err, connection);
    });
  }
}
