/**
 * kube-sim's shell and the programs its containers have (docs/kube-sim.md, "Container runtime
 * model"). A container's command is one of these programs, or a server kube-sim cannot run (see
 * `classifyCommand`):
 * - programs found on $PATH (by name, or as /bin/…, /usr/bin/…): `echo` (GNU), `printf`,
 *   `printenv`, `env`, `cat` (stdin only: there is no file system), `sleep`, `true`, `false`,
 *   `hostname`, `pwd`, `stty size` (the terminal's size after the last resize), and the shells
 *   `sh`/`dash` and `bash`;
 * - the shell (`sh -c '…'`, or commands read from stdin, with a `# ` prompt on a terminal):
 *   shell-syntax.ts's subset; builtins `:`, `true`, `false`, `echo` (dash's: escapes always, -n
 *   only; bash's: GNU's), `printf`, `exit`, `exec`, `export`, `unset`, `set` (-e -u -x, -o
 *   pipefail, `--`), `shift`, `read`, `cd`, `pwd`.
 * A program it does not have (`sed`, `nginx`, `rake`): in the container's own command — its
 * command line or a script it runs — it stands in for the real one (ProcessContext.standIn: until
 * stopped, or for a Job Pod's while), and so does a script in shell the subset does not run
 * (`while`, `if`, `$(…)`), so scripts written for real images behave as servers, not crash loops.
 * In an exec'd command or a line typed into a shell reading stdin it is not found, as dash says it
 * (`sh: 1: foo: not found`, status 127; bash: `bash: line 1: foo: command not found`).
 * Pipelines run one stage after the other (each stage's output is the next one's input), which is
 * the same result for everything this subset can run.
 */
import { type InputReader, TextInput } from './input.ts';
import {
  type AndOrList,
  type Pipeline,
  parseScript,
  type Redirect,
  type Script,
  ShellSyntaxError,
  type SimpleCommand,
  type WordPart,
} from './shell-syntax.ts';
import { abortableSleep, Interrupted } from './signals.ts';
import { echoText, printfText, sleepDuration } from './utilities.ts';

export type Sink = (text: string) => void;

/** Where a command writes and what it reads. */
export interface CommandIO {
  out: Sink;
  err: Sink;
  input: InputReader;
}

/** What the process running the commands provides. */
export interface ProcessContext {
  /** The signal the foreground command runs under: aborted by Ctrl-C (SIGINT) and by a kill. */
  foreground(): AbortSignal;
  hostname: string;
  workingDir: string;
  /** The process's PID ($$). */
  pid: number;
  /** stdin is a terminal: a shell reading it is interactive (prompts, keeps going after errors). */
  interactiveInput: boolean;
  /** The terminal's size as the last resize set it (`stty size`); undefined without a terminal. */
  terminalSize?: () => { cols: number; rows: number } | undefined;
  /**
   * A program kube-sim does not have, run by the container's own command: it stands in for the
   * real one (runs until stopped, or for a while) and its status is returned. Absent — in exec'd
   * commands and in what a shell reads from stdin, which an operator typed — such a program is not
   * found (127).
   */
  standIn?: (name: string, args: string[], io: CommandIO) => Promise<number>;
}

/** Exported variables, in order (what `env` prints and a program is started with). */
export type Environment = Map<string, string>;

export type Program = (
  args: string[],
  io: CommandIO,
  env: Environment,
  ctx: ProcessContext,
  name: string,
) => Promise<number>;

/** `exit N` (and the end of `exec`): unwinds to the shell that runs the script. */
class ExitRequest extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** A failed expansion (`${X?}`, `set -u`): ends a non-interactive shell with status 2. */
class ExpansionError extends Error {}

const BIN_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin']);
const SHELLS = new Set(['sh', 'dash', 'bash']);

const basename = (name: string) => name.slice(name.lastIndexOf('/') + 1);

/** A program on $PATH: by name, or by a path in one of the usual bin directories. */
export function findProgram(name: string): Program | undefined {
  if (name.includes('/')) {
    const dir = name.slice(0, name.lastIndexOf('/')) || '/';
    if (!BIN_DIRS.has(dir)) return undefined;
  }
  const base = basename(name);
  return Object.hasOwn(PROGRAMS, base) ? PROGRAMS[base] : undefined;
}

interface ShellArgs {
  options: Partial<ShellOptions>;
  command?: string;
  file?: string;
  arg0?: string;
  positional: string[];
  error?: string;
}

interface ShellOptions {
  errexit: boolean;
  nounset: boolean;
  xtrace: boolean;
  pipefail: boolean;
}

const OPTION_LETTERS: Record<string, keyof ShellOptions> = { e: 'errexit', u: 'nounset', x: 'xtrace' };
const IGNORED_LETTERS = new Set([
  'l',
  'i',
  'v',
  'f',
  'n',
  'a',
  'm',
  'b',
  'h',
  'p',
  'C',
  'E',
  'T',
  'B',
  'H',
  'P',
  'k',
  't',
]);
const LONG_OPTIONS: Record<string, keyof ShellOptions> = {
  errexit: 'errexit',
  nounset: 'nounset',
  xtrace: 'xtrace',
  pipefail: 'pipefail',
};

/** `sh [-eux] [-o opt] [-c command [arg0 [arg…]]] | [-s] [arg…] | [file [arg…]]`. */
function parseShellArgs(args: string[]): ShellArgs {
  const options: Partial<ShellOptions> = {};
  let c = false;
  let s = false;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--' || a === '-') {
      i++;
      break;
    }
    if (a.startsWith('--')) {
      // bash's long options (--login, --norc, --noprofile, --posix) change nothing here.
      if (a === '--rcfile' || a === '--init-file') i++;
      continue;
    }
    if (!/^[-+][A-Za-z]+$/.test(a)) break;
    const on = a[0] === '-';
    for (const letter of a.slice(1)) {
      if (letter === 'c') c = true;
      else if (letter === 's') s = true;
      else if (letter === 'o') {
        const name = args[++i];
        if (name !== undefined && Object.hasOwn(LONG_OPTIONS, name)) options[LONG_OPTIONS[name]!] = on;
      } else if (Object.hasOwn(OPTION_LETTERS, letter)) options[OPTION_LETTERS[letter]!] = on;
      else if (!IGNORED_LETTERS.has(letter))
        return { options, positional: [], error: `Illegal option -${letter}` };
    }
  }
  const operands = args.slice(i);
  if (c) {
    if (operands.length === 0) return { options, positional: [], error: '-c requires an argument' };
    return {
      options,
      command: operands[0]!,
      ...(operands[1] !== undefined ? { arg0: operands[1] } : {}),
      positional: operands.slice(2),
    };
  }
  if (s || operands.length === 0) return { options, positional: operands };
  return { options, file: operands[0]!, positional: operands.slice(1) };
}

/**
 * Whether kube-sim can run this argv: a program it has (a shell only with `-c` or reading stdin,
 * not with a script file, which would be in the image). Anything else is a server it cannot run.
 */
export function classifyCommand(argv: readonly string[]): 'interpreted' | 'unknown' {
  const name = argv[0];
  if (name === undefined || !findProgram(name)) return 'unknown';
  if (SHELLS.has(basename(name))) {
    const parsed = parseShellArgs(argv.slice(1));
    if (parsed.file !== undefined && !parsed.error) return 'unknown';
  }
  return 'interpreted';
}

/** Runs one of the programs (the caller checked it exists with classifyCommand/findProgram). */
export async function runProgram(
  argv: readonly string[],
  io: CommandIO,
  env: Environment,
  ctx: ProcessContext,
): Promise<number> {
  const program = findProgram(argv[0] ?? '');
  if (!program) throw new Error(`no such program: ${argv[0]}`);
  return program(argv.slice(1), io, env, ctx, argv[0]!);
}

// --- programs ---

async function shellProgram(
  flavor: 'dash' | 'bash',
  args: string[],
  io: CommandIO,
  env: Environment,
  ctx: ProcessContext,
  name: string,
): Promise<number> {
  const parsed = parseShellArgs(args);
  if (parsed.error) {
    io.err(`${name}: 0: ${parsed.error}\n`);
    return 2;
  }
  if (parsed.file !== undefined) {
    io.err(
      flavor === 'bash'
        ? `${name}: ${parsed.file}: No such file or directory\n`
        : `${name}: 0: cannot open ${parsed.file}: No such file\n`,
    );
    return flavor === 'bash' ? 127 : 2;
  }
  const shell = new Shell(ctx, {
    env,
    arg0: parsed.arg0 ?? name,
    positional: parsed.positional,
    flavor,
    options: parsed.options,
  });
  if (parsed.command !== undefined) return shell.runScript(parsed.command, io);
  return shell.runInput(io, ctx.interactiveInput);
}

const printEnv = (env: Environment, io: CommandIO) => {
  for (const [k, v] of env) io.out(`${k}=${v}\n`);
};

const PROGRAMS: Record<string, Program> = {
  echo: async (args, io) => {
    io.out(echoText(args, 'gnu'));
    return 0;
  },
  printf: async (args, io) => {
    if (args.length === 0) {
      io.err("printf: missing operand\nTry 'printf --help' for more information.\n");
      return 1;
    }
    const result = printfText(args[0]!, args.slice(1));
    io.out(result.text);
    for (const e of result.errors) io.err(`printf: ${e}\n`);
    return result.errors.length > 0 ? 1 : 0;
  },
  printenv: async (args, io, env) => {
    if (args.length === 0) {
      printEnv(env, io);
      return 0;
    }
    let status = 0;
    for (const name of args) {
      const value = env.get(name);
      if (value === undefined) status = 1;
      else io.out(`${value}\n`);
    }
    return status;
  },
  env: async (args, io, env, ctx) => {
    let next = new Map(env);
    let i = 0;
    for (; i < args.length; i++) {
      const a = args[i]!;
      if (a === '-i' || a === '-' || a === '--ignore-environment') next = new Map();
      else if (a === '-u' || a === '--unset') next.delete(args[++i] ?? '');
      else if (a === '--') {
        i++;
        break;
      } else break;
    }
    for (; i < args.length && /^[^=]+=/.test(args[i]!); i++) {
      const a = args[i]!;
      const eq = a.indexOf('=');
      next.set(a.slice(0, eq), a.slice(eq + 1));
    }
    if (i >= args.length) {
      printEnv(next, io);
      return 0;
    }
    const name = args[i]!;
    const program = findProgram(name);
    if (!program) {
      if (ctx.standIn) return ctx.standIn(name, args.slice(i + 1), io);
      io.err(`env: '${name}': No such file or directory\n`);
      return 127;
    }
    return program(args.slice(i + 1), io, next, ctx, name);
  },
  cat: async (args, io, _env, ctx) => {
    const files = args.filter((a) => a !== '-u');
    let status = 0;
    for (const file of files.length > 0 ? files : ['-']) {
      if (file !== '-') {
        io.err(`cat: ${file}: No such file or directory\n`);
        status = 1;
        continue;
      }
      for (let chunk = await io.input.read(ctx.foreground()); chunk !== null; ) {
        io.out(chunk);
        chunk = await io.input.read(ctx.foreground());
      }
    }
    return status;
  },
  sleep: async (args, io, _env, ctx) => {
    const duration = sleepDuration(args);
    if ('error' in duration) {
      io.err(`${duration.error}\n`);
      return 1;
    }
    await abortableSleep(duration.ms, ctx.foreground());
    return 0;
  },
  true: async () => 0,
  false: async () => 1,
  hostname: async (_args, io, _env, ctx) => {
    io.out(`${ctx.hostname}\n`);
    return 0;
  },
  pwd: async (_args, io, _env, ctx) => {
    io.out(`${ctx.workingDir}\n`);
    return 0;
  },
  // Only `stty size` (rows, then columns, as coreutils prints them): what a test needs to see that
  // a terminal resize reached the container. No terminal: coreutils' ioctl error.
  stty: async (args, io, _env, ctx) => {
    if (args.length !== 1 || args[0] !== 'size') {
      io.err(`stty: kube-sim's stty knows only 'stty size', not '${args.join(' ')}'\n`);
      return 1;
    }
    const size = ctx.terminalSize?.();
    if (!size) {
      io.err("stty: 'standard input': Inappropriate ioctl for device\n");
      return 1;
    }
    io.out(`${size.rows} ${size.cols}\n`);
    return 0;
  },
  sh: (args, io, env, ctx, name) => shellProgram('dash', args, io, env, ctx, name),
  dash: (args, io, env, ctx, name) => shellProgram('dash', args, io, env, ctx, name),
  bash: (args, io, env, ctx, name) => shellProgram('bash', args, io, env, ctx, name),
};

// --- the shell ---

type Builtin = (shell: Shell, args: string[], io: CommandIO, line: number) => Promise<number> | number;

/** Builtins whose assignments stay (POSIX special builtins). */
const SPECIAL_BUILTINS = new Set([':', 'exit', 'exec', 'export', 'unset', 'set', 'shift']);

const BUILTINS: Record<string, Builtin> = {
  ':': () => 0,
  true: () => 0,
  false: () => 1,
  echo: (shell, args, io) => {
    io.out(echoText(args, shell.flavor === 'dash' ? 'dash' : 'gnu'));
    return 0;
  },
  printf: (shell, args, io, line) => {
    if (args.length === 0) {
      io.err(`${shell.prefix(line)}printf: usage: printf format [arg ...]\n`);
      return 2;
    }
    const result = printfText(args[0]!, args.slice(1));
    io.out(result.text);
    for (const e of result.errors) io.err(`${shell.prefix(line)}printf: ${e}\n`);
    return result.errors.length > 0 ? 1 : 0;
  },
  exit: (shell, args, io, line) => {
    const arg = args[0];
    if (arg === undefined) throw new ExitRequest(shell.lastStatus);
    if (!/^\d+$/.test(arg)) {
      io.err(`${shell.prefix(line)}exit: Illegal number: ${arg}\n`);
      throw new ExitRequest(2);
    }
    throw new ExitRequest(Number(arg) & 255);
  },
  exec: async (shell, args, io, line) => {
    if (args.length === 0) return 0;
    const program = findProgram(args[0]!);
    if (!program) {
      if (shell.ctx.standIn) throw new ExitRequest(await shell.ctx.standIn(args[0]!, args.slice(1), io));
      io.err(`${shell.prefix(line)}exec: ${args[0]}: not found\n`);
      throw new ExitRequest(127);
    }
    throw new ExitRequest(await program(args.slice(1), io, shell.environment(), shell.ctx, args[0]!));
  },
  export: (shell, args) => {
    for (const a of args) {
      if (a === '-p') continue;
      const eq = a.indexOf('=');
      const name = eq < 0 ? a : a.slice(0, eq);
      if (eq >= 0) shell.setVar(name, a.slice(eq + 1));
      shell.exported.add(name);
    }
    return 0;
  },
  unset: (shell, args) => {
    for (const name of args.filter((a) => !a.startsWith('-'))) {
      shell.vars.delete(name);
      shell.exported.delete(name);
    }
    return 0;
  },
  set: (shell, args, io) => {
    if (args.length === 0) {
      for (const [k, v] of [...shell.vars].sort(([a], [b]) => (a < b ? -1 : 1)))
        io.out(`${k}='${v.replace(/'/g, "'\\''")}'\n`);
      return 0;
    }
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '--') {
        shell.positional = args.slice(i + 1);
        return 0;
      }
      if (!/^[-+][A-Za-z]+$/.test(a)) {
        shell.positional = args.slice(i);
        return 0;
      }
      const on = a[0] === '-';
      for (const letter of a.slice(1)) {
        if (letter === 'o') {
          const name = args[++i];
          if (name !== undefined && Object.hasOwn(LONG_OPTIONS, name))
            shell.options[LONG_OPTIONS[name]!] = on;
        } else if (Object.hasOwn(OPTION_LETTERS, letter)) shell.options[OPTION_LETTERS[letter]!] = on;
      }
    }
    return 0;
  },
  shift: (shell, args, io, line) => {
    const n = args[0] === undefined ? 1 : Number(args[0]);
    if (!Number.isInteger(n) || n < 0 || n > shell.positional.length) {
      io.err(`${shell.prefix(line)}shift: can't shift that many\n`);
      return 2;
    }
    shell.positional = shell.positional.slice(n);
    return 0;
  },
  read: async (shell, args, io) => {
    let raw = false;
    const names: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '-r') raw = true;
      else if (a === '-p') io.err(args[++i] ?? '');
      else names.push(a);
    }
    if (names.length === 0) names.push('REPLY');
    let line = await io.input.readLine(shell.ctx.foreground());
    const status = line === null ? 1 : 0;
    line ??= '';
    if (!raw) line = line.replace(/\\(.)/g, '$1');
    const fields = line.trim().split(/[ \t]+/);
    names.forEach((name, i) => {
      const value = i === names.length - 1 ? fields.slice(i).join(' ') : (fields[i] ?? '');
      shell.setVar(name, value);
    });
    return status;
  },
  cd: (shell, args) => {
    const dir = args[0] ?? '/root';
    const current = shell.vars.get('PWD') ?? shell.ctx.workingDir;
    shell.setVar('PWD', dir.startsWith('/') ? dir : `${current.replace(/\/$/, '')}/${dir}`);
    return 0;
  },
  pwd: (shell, _args, io) => {
    io.out(`${shell.vars.get('PWD') ?? shell.ctx.workingDir}\n`);
    return 0;
  },
};

/** Collects the fields of one word's expansion (POSIX field splitting on IFS whitespace). */
class Fields {
  readonly fields: string[] = [];
  private current = '';
  private has = false;

  add(text: string, quoted: boolean): void {
    this.current += text;
    if (quoted || text !== '') this.has = true;
  }

  /** Unquoted expansion: split at runs of space, tab and newline. */
  addSplit(value: string): void {
    const pieces = value.split(/[ \t\n]+/);
    pieces.forEach((piece, i) => {
      if (i > 0) this.end();
      this.add(piece, false);
    });
  }

  /** "$@": one field per argument. */
  addEach(values: string[]): void {
    values.forEach((value, i) => {
      if (i > 0) {
        this.fields.push(this.current);
        this.current = '';
      }
      this.add(value, true);
    });
  }

  end(): void {
    if (this.has) this.fields.push(this.current);
    this.current = '';
    this.has = false;
  }

  done(): string[] {
    this.end();
    return this.fields;
  }
}

const SPECIAL_NAMES = new Set(['?', '$', '#', '@', '*', '!', '-']);

export class Shell {
  readonly vars: Map<string, string>;
  readonly exported: Set<string>;
  readonly flavor: 'dash' | 'bash';
  readonly options: ShellOptions;
  positional: string[];
  private readonly arg0: string;
  private status = 0;
  private interactive = false;

  constructor(
    public ctx: ProcessContext,
    init: {
      env: Environment;
      arg0: string;
      positional?: string[];
      flavor?: 'dash' | 'bash';
      options?: Partial<ShellOptions>;
    },
  ) {
    this.vars = new Map(init.env);
    this.exported = new Set(init.env.keys());
    this.arg0 = init.arg0;
    this.positional = init.positional ?? [];
    this.flavor = init.flavor ?? 'dash';
    this.options = { errexit: false, nounset: false, xtrace: false, pipefail: false, ...init.options };
  }

  get lastStatus(): number {
    return this.status;
  }

  /** Exported variables, for programs this shell starts. */
  environment(): Environment {
    const env: Environment = new Map();
    for (const [k, v] of this.vars) if (this.exported.has(k)) env.set(k, v);
    return env;
  }

  setVar(name: string, value: string): void {
    this.vars.set(name, value);
  }

  /** The start of a diagnostic: dash `sh: 1: `, bash `bash: line 1: ` (interactive bash: `bash: `). */
  prefix(line: number): string {
    if (this.flavor === 'bash') return this.interactive ? `${this.arg0}: ` : `${this.arg0}: line ${line}: `;
    return `${this.arg0}: ${line}: `;
  }

  /** `sh -c SCRIPT`: the script's status, or its `exit`. */
  async runScript(text: string, io: CommandIO): Promise<number> {
    let script: Script;
    try {
      script = parseScript(text);
    } catch (err) {
      if (!(err instanceof ShellSyntaxError)) throw err;
      // A container's script in shell the subset does not run stands for work kube-sim cannot do.
      if (err.unsupported && this.ctx.standIn) return this.ctx.standIn(this.arg0, [text], io);
      io.err(`${this.prefix(err.line)}${err.message}\n`);
      return 2;
    }
    try {
      await this.runList(script, io);
      return this.status;
    } catch (err) {
      if (err instanceof ExitRequest) return err.code;
      if (err instanceof ExpansionError) return 2;
      throw err;
    }
  }

  private prompt(io: CommandIO, continuation: boolean): void {
    if (!this.interactive) return;
    if (continuation) io.err('> ');
    else
      io.err(
        this.flavor === 'bash'
          ? `root@${this.ctx.hostname}:${this.vars.get('PWD') ?? this.ctx.workingDir}# `
          : '# ',
      );
  }

  /**
   * A shell reading its commands from stdin, a line at a time: interactive on a terminal (a prompt,
   * Ctrl-C ends the running command and the shell goes on, errors do not end it); ends at `exit`
   * or the end of input with the last status.
   */
  async runInput(io: CommandIO, interactive: boolean): Promise<number> {
    this.interactive = interactive;
    // What it reads was typed by someone: a program it does not have is not found.
    const { standIn: _typed, ...ctx } = this.ctx;
    this.ctx = ctx;
    let line = 0;
    for (;;) {
      try {
        this.prompt(io, false);
        let text = await io.input.readLine(this.ctx.foreground());
        if (text === null) return this.status;
        line++;
        const first = line;
        let script: Script | undefined;
        for (;;) {
          try {
            script = parseScript(text, first);
            break;
          } catch (err) {
            if (!(err instanceof ShellSyntaxError)) throw err;
            let more: string | null = null;
            if (err.incomplete) {
              this.prompt(io, true);
              more = await io.input.readLine(this.ctx.foreground());
            }
            if (more === null) {
              io.err(`${this.prefix(err.line)}${err.message}\n`);
              this.status = 2;
              if (!interactive) return 2;
              break;
            }
            line++;
            text += `\n${more}`;
          }
        }
        if (script) await this.runList(script, io);
      } catch (err) {
        if (err instanceof ExitRequest) return err.code;
        if (err instanceof ExpansionError) {
          this.status = 2;
          if (!interactive) return 2;
          continue;
        }
        if (interactive && err instanceof Interrupted && err.signal === 'SIGINT') {
          // The terminal echoed ^C; the shell starts a fresh line.
          io.err('\n');
          this.status = 130;
          continue;
        }
        throw err;
      }
    }
  }

  private async runList(script: Script, io: CommandIO): Promise<void> {
    for (const list of script) await this.runAndOr(list, io);
  }

  private async runAndOr(list: AndOrList, io: CommandIO): Promise<void> {
    let status = await this.runPipeline(list.first, io);
    let last: Pipeline = list.first;
    let lastIndex = 0;
    for (const [i, { op, pipeline }] of list.rest.entries()) {
      if ((op === '&&' && status === 0) || (op === '||' && status !== 0)) {
        status = await this.runPipeline(pipeline, io);
        last = pipeline;
        lastIndex = i + 1;
      }
    }
    // set -e: a failure ends the shell unless it was tested (left of && or ||, or negated).
    if (this.options.errexit && status !== 0 && lastIndex === list.rest.length && !last.negate)
      throw new ExitRequest(status);
  }

  private async runPipeline(pipeline: Pipeline, io: CommandIO): Promise<number> {
    let status: number;
    if (pipeline.commands.length === 1) status = await this.runSimple(pipeline.commands[0]!, io);
    else {
      let input = io.input;
      const statuses: number[] = [];
      for (const [i, command] of pipeline.commands.entries()) {
        const last = i === pipeline.commands.length - 1;
        let captured = '';
        const stage: CommandIO = {
          out: last
            ? io.out
            : (text) => {
                captured += text;
              },
          err: io.err,
          input,
        };
        // Each stage runs in a subshell: its `exit` ends the stage only.
        try {
          statuses.push(await this.runSimple(command, stage));
        } catch (err) {
          if (!(err instanceof ExitRequest)) throw err;
          statuses.push(err.code);
        }
        input = new TextInput(captured);
      }
      status = this.options.pipefail ? ([...statuses].reverse().find((s) => s !== 0) ?? 0) : statuses.at(-1)!;
    }
    if (pipeline.negate) status = status === 0 ? 1 : 0;
    this.status = status;
    return status;
  }

  private async runSimple(command: SimpleCommand, io: CommandIO): Promise<number> {
    const { line } = command;
    let argv: string[];
    let assignments: (readonly [string, string])[];
    let redirected: CommandIO | number;
    try {
      argv = command.words.flatMap((w) => this.expand(w, line));
      assignments = command.assignments.map(
        ({ name, value }) => [name, this.expandText(value, line)] as const,
      );
      redirected = this.redirect(io, command.redirects, line);
    } catch (err) {
      if (err instanceof ExpansionError) io.err(`${err.message}\n`);
      throw err;
    }
    if (typeof redirected === 'number') return this.finish(redirected);
    if (this.options.xtrace && (argv.length > 0 || assignments.length > 0))
      io.err(`+ ${[...assignments.map(([k, v]) => `${k}=${v}`), ...argv].join(' ')}\n`);
    if (argv.length === 0) {
      for (const [name, value] of assignments) this.setVar(name, value);
      return this.finish(0);
    }
    const name = argv[0]!;
    if (Object.hasOwn(BUILTINS, name)) {
      if (SPECIAL_BUILTINS.has(name)) for (const [k, v] of assignments) this.setVar(k, v);
      return this.finish(await BUILTINS[name]!(this, argv.slice(1), redirected, line));
    }
    const program = findProgram(name);
    if (!program && this.ctx.standIn)
      return this.finish(await this.ctx.standIn(name, argv.slice(1), redirected));
    if (!program) {
      redirected.err(
        this.flavor === 'bash'
          ? `${this.prefix(line)}${name}: command not found\n`
          : `${this.prefix(line)}${name}: not found\n`,
      );
      return this.finish(127);
    }
    const env = this.environment();
    for (const [k, v] of assignments) env.set(k, v);
    return this.finish(await program(argv.slice(1), redirected, env, this.ctx, name));
  }

  private finish(status: number): number {
    this.status = status;
    return status;
  }

  /** `>`, `>>`, `<`, `N>&M`: to the other stream, /dev/null, /dev/stdout or /dev/stderr. */
  private redirect(io: CommandIO, redirects: Redirect[], line: number): CommandIO | number {
    if (redirects.length === 0) return io;
    const sinks = new Map<number, Sink>([
      [1, io.out],
      [2, io.err],
    ]);
    let input = io.input;
    const discard: Sink = () => undefined;
    for (const r of redirects) {
      const target = this.expandText(r.target, line);
      if (r.op === '>&' || r.op === '<&') {
        if (target === '-') sinks.set(r.fd, discard);
        else if (/^\d+$/.test(target) && sinks.has(Number(target)))
          sinks.set(r.fd, sinks.get(Number(target))!);
        else if (r.fd !== 0) {
          io.err(`${this.prefix(line)}${target}: Bad file descriptor\n`);
          return 2;
        }
        continue;
      }
      if (r.op === '<') {
        if (target === '/dev/null') input = new TextInput('');
        else if (target !== '/dev/stdin') {
          io.err(`${this.prefix(line)}cannot open ${target}: No such file\n`);
          return 2;
        }
        continue;
      }
      const sink =
        target === '/dev/null'
          ? discard
          : target === '/dev/stdout' || target === '/dev/tty'
            ? io.out
            : target === '/dev/stderr'
              ? io.err
              : undefined;
      if (!sink) {
        // kube-sim's containers have no file system to write to.
        io.err(`${this.prefix(line)}cannot create ${target}: Read-only file system\n`);
        return 2;
      }
      sinks.set(r.fd, sink);
    }
    return { out: sinks.get(1)!, err: sinks.get(2)!, input };
  }

  private special(name: string): string | undefined {
    switch (name) {
      case '?':
        return String(this.status);
      case '$':
        return String(this.ctx.pid);
      case '#':
        return String(this.positional.length);
      case '@':
      case '*':
        return this.positional.join(' ');
      case '!':
        return '';
      case '-':
        return (Object.keys(OPTION_LETTERS) as string[])
          .filter((l) => this.options[OPTION_LETTERS[l]!])
          .join('');
      default:
        if (/^\d+$/.test(name)) return name === '0' ? this.arg0 : this.positional[Number(name) - 1];
        return this.vars.get(name);
    }
  }

  private expansionError(line: number, name: string, message: string): never {
    throw new ExpansionError(`${this.prefix(line)}${name}: ${message}`);
  }

  /** The value of `$NAME` / `${NAME<op>word}` (undefined: unset and no default). */
  private paramValue(
    part: Extract<WordPart, { kind: 'param' }>,
    line: number,
    fields?: Fields,
  ): string | undefined {
    const value = this.special(part.name);
    if (part.length) return String((value ?? '').length);
    const unsetOrEmpty = value === undefined || value === '';
    const word = () => this.expandText(part.word ?? [], line);
    switch (part.op) {
      case undefined:
        if (value === undefined && this.options.nounset && !SPECIAL_NAMES.has(part.name) && part.name !== '0')
          this.expansionError(line, part.name, 'parameter not set');
        return value;
      case ':-':
      case '-':
        if (part.op === ':-' ? unsetOrEmpty : value === undefined) {
          if (fields && !part.quoted) {
            this.expandInto(part.word ?? [], line, fields, true);
            return undefined;
          }
          return word();
        }
        return value;
      case ':=':
      case '=':
        if (part.op === ':=' ? unsetOrEmpty : value === undefined) {
          const assigned = word();
          this.setVar(part.name, assigned);
          return assigned;
        }
        return value;
      case ':+':
      case '+':
        if (part.op === ':+' ? unsetOrEmpty : value === undefined) return '';
        if (fields && !part.quoted) {
          this.expandInto(part.word ?? [], line, fields, true);
          return undefined;
        }
        return word();
      case ':?':
      case '?':
        if (part.op === ':?' ? unsetOrEmpty : value === undefined) {
          const message = word() || (part.op === ':?' ? 'parameter null or not set' : 'parameter not set');
          this.expansionError(line, part.name, message);
        }
        return value;
    }
  }

  private expandInto(parts: WordPart[], line: number, fields: Fields, splitText = false): void {
    for (const part of parts) {
      if (part.kind === 'text') {
        if (splitText && !part.quoted) fields.addSplit(part.text);
        else fields.add(part.text, part.quoted);
        continue;
      }
      if (part.quoted && part.name === '@' && !part.op && !part.length) {
        fields.addEach(this.positional);
        continue;
      }
      const value = this.paramValue(part, line, fields);
      if (value === undefined) continue;
      if (part.quoted) fields.add(value, true);
      else fields.addSplit(value);
    }
  }

  /** A word's fields (after parameter expansion and field splitting; no globbing: no files). */
  private expand(word: WordPart[], line: number): string[] {
    const fields = new Fields();
    this.expandInto(word, line, fields);
    return fields.done();
  }

  /** A word as one string (assignments, redirection targets, `${X:-word}`): no field splitting. */
  private expandText(word: WordPart[], line: number): string {
    let text = '';
    for (const part of word) {
      if (part.kind === 'text') text += part.text;
      else text += this.paramValue(part, line) ?? '';
    }
    return text;
  }
}
