/**
 * What a simulated command reads: a process's stdin (fed by attach, or nothing), or the output
 * of the previous stage of a pipeline. Reads wait for data and give up when their signal aborts
 * (Ctrl-C, a kill), rejecting with `Interrupted`.
 *
 * A terminal's end of input (Ctrl-D at the start of a line) ends one read, not the stream: the
 * next read waits for more, as on a tty. `end()` (stdin closed) is for good.
 */
import { interruption } from './signals.ts';

export interface InputReader {
  /** The next chunk of input; null at end of input. */
  read(signal: AbortSignal): Promise<string | null>;
  /** The next line without its newline; null at end of input (a last unterminated line comes first). */
  readLine(signal: AbortSignal): Promise<string | null>;
}

const EOF = Symbol('eof');
type Item = string | typeof EOF;

/** Input that arrives over time: a process's stdin. */
export class InputQueue implements InputReader {
  private readonly items: Item[] = [];
  private ended = false;
  private waiter: (() => void) | undefined;

  /** Data typed or sent; ignored once the input ended. */
  push(text: string): void {
    if (this.ended || text === '') return;
    this.items.push(text);
    this.wake();
  }

  /** A terminal's end of input: the current read returns what it has (or null). */
  pushEof(): void {
    if (this.ended) return;
    this.items.push(EOF);
    this.wake();
  }

  /** The input is closed for good. */
  end(): void {
    this.ended = true;
    this.wake();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  private async next(signal: AbortSignal): Promise<Item | null> {
    for (;;) {
      if (signal.aborted) throw interruption(signal);
      if (this.items.length > 0) return this.items.shift()!;
      if (this.ended) return null;
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          this.waiter = undefined;
          reject(interruption(signal));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiter = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
      });
    }
  }

  async read(signal: AbortSignal): Promise<string | null> {
    const item = await this.next(signal);
    return item === null || item === EOF ? null : item;
  }

  async readLine(signal: AbortSignal): Promise<string | null> {
    let line = '';
    for (;;) {
      const item = await this.next(signal);
      if (item === null || item === EOF) return line === '' ? null : line;
      const nl = item.indexOf('\n');
      if (nl < 0) {
        line += item;
        continue;
      }
      line += item.slice(0, nl);
      const rest = item.slice(nl + 1);
      if (rest) this.items.unshift(rest);
      return line;
    }
  }
}

/** Input that is all there already: a pipeline stage's, or /dev/null's (empty). */
export class TextInput implements InputReader {
  constructor(private text: string) {}

  async read(signal: AbortSignal): Promise<string | null> {
    if (signal.aborted) throw interruption(signal);
    if (this.text === '') return null;
    const all = this.text;
    this.text = '';
    return all;
  }

  async readLine(signal: AbortSignal): Promise<string | null> {
    if (signal.aborted) throw interruption(signal);
    if (this.text === '') return null;
    const nl = this.text.indexOf('\n');
    const line = nl < 0 ? this.text : this.text.slice(0, nl);
    this.text = nl < 0 ? '' : this.text.slice(nl + 1);
    return line;
  }
}
