/**
 * A terminal's line discipline for a container with `tty: true` (pure): what Linux's n_tty does in
 * its default cooked mode, reduced to what interactive commands over attach and exec need.
 * Input: ICRNL (CR becomes NL, so Enter sends a line), ECHO of what is typed (Enter echoes CR NL),
 * ERASE (DEL or BS removes the last character: `\b \b`), KILL (Ctrl-U clears the line), ISIG
 * (Ctrl-C echoes `^C`, drops the line and interrupts the foreground command), EOF (Ctrl-D at the
 * start of a line ends the current read; mid-line it sends the line so far without a newline),
 * ECHOCTL (other control characters echo as `^X`). Input is delivered a line at a time (ICANON).
 * Output: ONLCR (every NL leaves as CR NL). A tty has one output stream: stderr goes there too.
 */
import { StringDecoder } from 'node:string_decoder';

export type TtyEvent =
  | { kind: 'echo'; text: string }
  | { kind: 'data'; text: string }
  | { kind: 'eof' }
  | { kind: 'interrupt' };

export class LineDiscipline {
  private line = '';
  private readonly decoder = new StringDecoder('utf8');

  /** What typing `chunk` does, in order: echo to the screen, lines for the reader, signals. */
  input(chunk: Buffer | string): TtyEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const events: TtyEvent[] = [];
    let echo = '';
    const flush = () => {
      if (echo) events.push({ kind: 'echo', text: echo });
      echo = '';
    };
    for (const ch of text) {
      switch (ch) {
        case '\r':
        case '\n': {
          echo += '\r\n';
          flush();
          events.push({ kind: 'data', text: `${this.line}\n` });
          this.line = '';
          break;
        }
        case '\x7f':
        case '\b': {
          const chars = [...this.line];
          const last = chars.pop();
          if (last !== undefined) {
            // A control character echoed as ^X takes two columns.
            echo += last < ' ' ? '\b \b\b \b' : '\b \b';
            this.line = chars.join('');
          }
          break;
        }
        case '\x15':
          for (const c of this.line) echo += c < ' ' ? '\b \b\b \b' : '\b \b';
          this.line = '';
          break;
        case '\x03':
          echo += '^C';
          flush();
          this.line = '';
          events.push({ kind: 'interrupt' });
          break;
        case '\x04':
          flush();
          if (this.line === '') events.push({ kind: 'eof' });
          else events.push({ kind: 'data', text: this.line });
          this.line = '';
          break;
        default:
          echo += ch < ' ' && ch !== '\t' ? `^${String.fromCharCode(ch.charCodeAt(0) + 64)}` : ch;
          this.line += ch;
      }
    }
    flush();
    return events;
  }

  /** What the program's output looks like on the terminal. */
  output(text: string): string {
    return text.replace(/\n/g, '\r\n');
  }
}
