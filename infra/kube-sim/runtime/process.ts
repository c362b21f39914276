/**
 * A simulated process: a container's main process, or a command exec'd into a running container
 * (docs/kube-sim.md, "Container runtime model"). The kubelet model starts one per container
 * instance and records its output as the container's log; attach and exec relay its stdin,
 * output and terminal size. The interface is what those need from a process and nothing more:
 *
 *   write(data)      stdin (only when the container has `stdin: true`; on a tty, through the
 *                    line discipline: echo, CR → NL, Ctrl-C, Ctrl-D)
 *   endInput()       stdin closes (end of input for good; `stdinOnce` after the first attach)
 *   onOutput(fn)     stdout and stderr as they are written (one `stdout` stream on a tty, with
 *                    NL → CR NL); returns the unsubscribe
 *   resize(c, r)     the terminal's size (kept; `stty size` prints it, nothing draws by it)
 *   kill(signal)     SIGINT interrupts the foreground command (as Ctrl-C), SIGTERM/SIGKILL/SIGHUP end
 *                    the process (status 128 + signal number)
 *   exited           resolves once with the exit status
 *
 * A program kube-sim does not have (shell.ts classifyCommand: `nginx`, `bundle exec puma`, the
 * image's default command — or `sed` inside the command's script) stands in for the real one: it
 * reads nothing, prints nothing and runs until it is stopped — or for `unknown.exitAfterMs`, then
 * exits with `unknown.exitCode` (a Job Pod's: settings.jobRunMs, failingJobImages). With
 * `unknown: 'not-found'` (exec'd commands) it is not found instead: status 127.
 */
import { StringDecoder } from 'node:string_decoder';
import { InputQueue, TextInput } from './input.ts';
import { LineDiscipline } from './line-discipline.ts';
import {
  type CommandIO,
  classifyCommand,
  type Environment,
  type ProcessContext,
  runProgram,
} from './shell.ts';
import { abortableSleep, Interrupted, type Signal, signalExitCode } from './signals.ts';

export type OutputStream = 'stdout' | 'stderr';
export type OutputListener = (stream: OutputStream, chunk: Buffer) => void;

export interface ProcessExit {
  exitCode: number;
  /** Set when a signal ended the process. */
  signal?: Signal;
}

export interface ContainerProcess {
  readonly pid: number;
  /** A terminal (`tty: true`): one output stream, echo and line editing on input. */
  readonly tty: boolean;
  /** stdin is open to writers (`stdin: true`) and not yet closed. */
  readonly stdinOpen: boolean;
  /** False for a command kube-sim cannot run (a server that runs until stopped). */
  readonly interpreted: boolean;
  readonly running: boolean;
  readonly size: { cols: number; rows: number } | undefined;
  write(data: Buffer | string): void;
  endInput(): void;
  onOutput(listener: OutputListener): () => void;
  resize(cols: number, rows: number): void;
  kill(signal?: Signal): void;
  readonly exited: Promise<ProcessExit>;
}

export interface ProcessSpec {
  /** The command line, already expanded (`$(VAR)`); empty: the image's default command. */
  argv: readonly string[];
  env: Environment;
  /** stdin can be written (`stdin: true`); otherwise it reads as /dev/null. */
  stdin?: boolean;
  tty?: boolean;
  hostname: string;
  workingDir?: string;
  pid?: number;
  /**
   * What a program kube-sim does not have does when the command runs it: runs for `exitAfterMs`
   * (Infinity, the default: until stopped) and exits with `exitCode`; or `'not-found'` (127).
   * Lines typed into a shell reading stdin are always `not found`.
   */
  unknown?: { exitAfterMs: number; exitCode: number } | 'not-found';
}

class SimProcess implements ContainerProcess {
  readonly pid: number;
  readonly tty: boolean;
  readonly interpreted: boolean;
  readonly exited: Promise<ProcessExit>;
  size: { cols: number; rows: number } | undefined;
  private readonly stdin: boolean;
  private readonly input = new InputQueue();
  private readonly discipline = new LineDiscipline();
  private readonly decoder = new StringDecoder('utf8');
  private readonly listeners = new Set<OutputListener>();
  private readonly killed = new AbortController();
  private fg = new AbortController();
  private done = false;

  constructor(private readonly spec: ProcessSpec) {
    this.pid = spec.pid ?? 1;
    this.tty = spec.tty ?? false;
    this.stdin = spec.stdin ?? false;
    this.interpreted = spec.argv.length > 0 && classifyCommand(spec.argv) === 'interpreted';
    if (!this.stdin) this.input.end();
    let resolve!: (exit: ProcessExit) => void;
    this.exited = new Promise((r) => {
      resolve = r;
    });
    // Started after the caller had the chance to subscribe to the output.
    queueMicrotask(() => {
      this.run().then((exit) => {
        this.done = true;
        this.input.end();
        resolve(exit);
      });
    });
  }

  get running(): boolean {
    return !this.done;
  }

  get stdinOpen(): boolean {
    return this.stdin && !this.done && !this.input.isEnded;
  }

  private async run(): Promise<ProcessExit> {
    const unknown = this.spec.unknown ?? { exitAfterMs: Number.POSITIVE_INFINITY, exitCode: 0 };
    const standsIn = unknown === 'not-found' ? undefined : unknown;
    const standIn = standsIn
      ? async () => {
          await abortableSleep(standsIn.exitAfterMs, this.fg.signal);
          return standsIn.exitCode;
        }
      : undefined;
    const ctx: ProcessContext = {
      foreground: () => this.fg.signal,
      hostname: this.spec.hostname,
      workingDir: this.spec.workingDir ?? '/',
      pid: this.pid,
      interactiveInput: this.tty && this.stdin,
      terminalSize: () => (this.tty ? (this.size ?? { cols: 0, rows: 0 }) : undefined),
      ...(standIn ? { standIn } : {}),
    };
    const io: CommandIO = {
      out: (text) => this.emit('stdout', text),
      err: (text) => this.emit(this.tty ? 'stdout' : 'stderr', text),
      input: this.stdin ? this.input : new TextInput(''),
    };
    try {
      if (this.interpreted)
        return { exitCode: (await runProgram(this.spec.argv, io, this.spec.env, ctx)) & 255 };
      if (!standIn) {
        // runc's words when the executable is missing.
        io.err(`exec: "${this.spec.argv[0] ?? ''}": executable file not found in $PATH\n`);
        return { exitCode: 127 };
      }
      return { exitCode: await standIn() };
    } catch (err) {
      if (err instanceof Interrupted) return { exitCode: signalExitCode(err.signal), signal: err.signal };
      // A bug in the simulator, not the command: say so where the container's log shows it.
      io.err(`kube-sim: ${(err as Error).message}\n`);
      return { exitCode: 128 };
    }
  }

  private emit(stream: OutputStream, text: string, raw = false): void {
    if (this.done || text === '') return;
    const shown = this.tty && !raw ? this.discipline.output(text) : text;
    const chunk = Buffer.from(shown, 'utf8');
    for (const listener of this.listeners) listener(this.tty ? 'stdout' : stream, chunk);
  }

  write(data: Buffer | string): void {
    if (!this.stdinOpen) return;
    if (!this.tty) {
      if (this.interpreted) this.input.push(typeof data === 'string' ? data : this.decoder.write(data));
      return;
    }
    for (const event of this.discipline.input(data)) {
      if (event.kind === 'echo') this.emit('stdout', event.text, true);
      else if (event.kind === 'interrupt') this.interrupt();
      else if (!this.interpreted) continue;
      else if (event.kind === 'data') this.input.push(event.text);
      else this.input.pushEof();
    }
  }

  endInput(): void {
    this.input.end();
  }

  onOutput(listener: OutputListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  resize(cols: number, rows: number): void {
    if (Number.isInteger(cols) && Number.isInteger(rows) && cols > 0 && rows > 0) this.size = { cols, rows };
  }

  /** Ctrl-C: the foreground command gets SIGINT; the next one runs under a fresh signal. */
  private interrupt(): void {
    if (this.killed.signal.aborted || this.done) return;
    const current = this.fg;
    this.fg = new AbortController();
    current.abort(new Interrupted('SIGINT'));
  }

  kill(signal: Signal = 'SIGTERM'): void {
    if (this.done) return;
    if (signal === 'SIGINT') {
      this.interrupt();
      return;
    }
    if (this.killed.signal.aborted) return;
    const reason = new Interrupted(signal);
    this.killed.abort(reason);
    // Every wait from now on fails at once: the process is going.
    this.fg.abort(reason);
    this.fg = this.killed;
  }
}

/** Starts a process; its output starts after the current synchronous code (subscribe first). */
export function spawnProcess(spec: ProcessSpec): ContainerProcess {
  return new SimProcess(spec);
}
