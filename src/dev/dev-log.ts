/**
 * `longshore dev`'s log output. On a terminal, lines a person reads (pino-pretty: time, level,
 * message, fields on the same line); in a pipe or a file, the JSON lines workers write, for tools.
 * LONGSHORE_LOG_FORMAT=json|pretty overrides. Lines are held back while the stack starts, so the
 * startup lines come first, then the instructions block, then every later line below it: nothing
 * ever lands inside the block. Worker and scheduler processes do not use this (they log JSON).
 */
import type { DestinationStream } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { LogFormat } from '../core/env.ts';
import { colourEnabled } from '../producers/cli/style.ts';

/** The format asked for, else pretty on a terminal and JSON otherwise. */
export function devLogFormat(configured: LogFormat | undefined, stdout: { isTTY?: boolean }): LogFormat {
  return configured ?? (stdout.isTTY ? 'pretty' : 'json');
}

/** JSON lines as they are, or pino-pretty's rendering of each. */
export function lineFormatter(format: LogFormat, colour: boolean): (line: string) => string {
  if (format === 'json') return (line) => line;
  const pretty = prettyFactory({
    colorize: colour,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    // Always this process and this machine, and `dev` throughout: noise on one screen.
    ignore: 'pid,hostname,component',
  });
  return (line) => pretty(line);
}

/**
 * A pino destination that holds lines until `release`. Writes go to `sink` synchronously, in
 * order (process.stdout is one stream for logs and the block, unlike pino's own fd writer).
 */
export class HeldLog implements DestinationStream {
  private held: string[] | undefined = [];
  private lastLineAt = Date.now();

  constructor(
    private readonly sink: (text: string) => void,
    private readonly format: (line: string) => string,
  ) {}

  write(line: string): void {
    this.lastLineAt = Date.now();
    const text = this.format(line);
    if (this.held) this.held.push(text);
    else this.sink(text);
  }

  /**
   * Resolves once nothing was logged for `quietMs` (the first sync enqueued and run, the cluster
   * connected), or after `maxMs` whatever goes on, so a chatty start never hides the block.
   */
  async settled(quietMs = 300, maxMs = 3_000): Promise<void> {
    const until = Date.now() + maxMs;
    for (;;) {
      const quietFor = Date.now() - this.lastLineAt;
      if (quietFor >= quietMs || Date.now() >= until) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(quietMs - quietFor, until - Date.now())));
    }
  }

  /** Writes the held lines, then `block`, in one write; later lines pass straight through. */
  release(block = ''): void {
    const held = this.held ?? [];
    this.held = undefined;
    const text = held.join('') + block;
    if (text) this.sink(text);
  }
}

/** The held log of `longshore dev` on this process's stdout. */
export function devLog(configured: LogFormat | undefined): HeldLog {
  const format = devLogFormat(configured, process.stdout);
  return new HeldLog(
    (text) => process.stdout.write(text),
    lineFormatter(format, colourEnabled(process.stdout)),
  );
}
