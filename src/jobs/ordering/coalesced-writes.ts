/**
 * Coalesces the commands written to one Redis connection in the rest of this tick into one socket
 * write. ioredis writes every command to its socket at once (`stream.write` per command, see
 * ioredis built/Redis.js `sendCommand`), so a job's `finish` script and BullMQ's completion
 * script, sent one microtask apart, cost two `write` system calls and, on a busy machine, often
 * two reads by Redis. Corking the socket and uncorking it on `process.nextTick` is the pattern
 * Node documents for this (https://nodejs.org/api/stream.html#writableuncork): the buffered
 * chunks go out in one `writev` once the current microtasks have run — the processor's return
 * and BullMQ's `moveToFinished` are promise continuations of the same turn — so nothing waits for
 * a later event-loop turn.
 *
 * Order is unchanged: corking only delays the bytes of a tick to the end of that tick, in the
 * order they were written, on the same connection; Redis still runs `finish` before BullMQ's
 * completion. A socket not connected yet is left alone (ioredis queues the commands offline and
 * writes them on connect).
 */
import type { Redis } from 'ioredis';

const corked = new WeakSet<object>();

export function coalesceWritesThisTick(redis: Redis): void {
  const stream = redis.stream;
  if (!stream || redis.status !== 'ready' || corked.has(stream)) return;
  corked.add(stream);
  stream.cork();
  process.nextTick(() => {
    corked.delete(stream);
    stream.uncork();
  });
}
