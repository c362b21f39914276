/**
 * kube-sim's container commands (infra/kube-sim/runtime/): the shell subset and its programs, run
 * as a container's process would run them — what they print on stdout and stderr and the status
 * they exit with, compared with what dash, bash and GNU coreutils do.
 */
import { describe, expect, it } from 'vitest';
import { type ContainerProcess, spawnProcess } from '../../../infra/kube-sim/runtime/process.ts';
import { classifyCommand } from '../../../infra/kube-sim/runtime/shell.ts';
import { parseScript, ShellSyntaxError } from '../../../infra/kube-sim/runtime/shell-syntax.ts';
import { echoText, printfText, sleepDuration } from '../../../infra/kube-sim/runtime/utilities.ts';
import { until } from '../../helpers/wait.ts';

const ENV = new Map([
  ['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
  ['HOSTNAME', 'web-1'],
  ['GREETING', 'hello  world'],
  ['EMPTY', ''],
]);

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
  signal?: string;
}

type Unknown = { exitAfterMs: number; exitCode: number } | 'not-found';

function start(argv: string[], options: { stdin?: boolean; tty?: boolean; unknown?: Unknown } = {}) {
  const process = spawnProcess({ argv, env: ENV, hostname: 'web-1', ...options });
  const out = { stdout: '', stderr: '' };
  process.onOutput((stream, chunk) => {
    out[stream] += chunk.toString('utf8');
  });
  return { process, out };
}

/**
 * Runs a command to its end. By default as an exec'd command runs (a program kube-sim does not
 * have is not found); `unknown` as the container's own command (it stands in for the real one).
 */
async function run(argv: string[], input?: string, unknown: Unknown = 'not-found'): Promise<Run> {
  const { process, out } = start(argv, { stdin: input !== undefined, unknown });
  if (input !== undefined) {
    process.write(input);
    process.endInput();
  }
  const exit = await process.exited;
  return { ...out, ...exit };
}

const sh = (script: string, ...args: string[]) => run(['sh', '-c', script, ...args]);

describe('sh -c', () => {
  it('runs lists with ; && || and reports $?', async () => {
    expect(await sh('echo hi; printenv GREETING; exit 3')).toEqual({
      stdout: 'hi\nhello  world\n',
      stderr: '',
      exitCode: 3,
    });
    expect((await sh('false && echo no; true && echo yes; false || echo fallback; echo $?')).stdout).toBe(
      'yes\nfallback\n0\n',
    );
    expect((await sh('false; echo $?; true; echo $?')).stdout).toBe('1\n0\n');
    expect((await sh('! false && echo negated')).stdout).toBe('negated\n');
    expect((await sh('echo one\necho two # a comment\n\necho three')).stdout).toBe('one\ntwo\nthree\n');
    expect((await sh('echo done;')).exitCode).toBe(0);
    expect((await sh('exit')).exitCode).toBe(0);
    expect((await sh('false; exit')).exitCode).toBe(1);
    expect((await sh('exit 300')).exitCode).toBe(44);
  });

  it('quotes and expands as dash does', async () => {
    expect((await sh(`echo 'single $GREETING' "double $GREETING" $GREETING`)).stdout).toBe(
      'single $GREETING double hello  world hello world\n',
    );
    expect(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
      (await sh('echo "${GREETING}!" ${NOPE:-default} ${EMPTY:-empty} ${EMPTY-set} ${#GREETING}')).stdout,
    ).toBe('hello  world! default empty 12\n');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    expect((await sh('echo ${GREETING:+yes} ${NOPE:+no} ${X:=assigned} $X')).stdout).toBe(
      'yes assigned assigned\n',
    );
    expect((await sh('printf "[%s]" "" $EMPTY "$EMPTY" a\\ b "a"\'b\'c')).stdout).toBe('[][][a b][abc]');
    expect((await sh(`echo \\$HOME "\\"quoted\\"" 'it'"'"'s'`)).stdout).toBe(`$HOME "quoted" it's\n`);
    expect((await sh('echo $0 $1 $2 $# "$@"', 'name', 'a', 'b c')).stdout).toBe('name a b c 2 a b c\n');
    expect((await sh('set -- x "y z"; printf "<%s>" "$@"; echo $#')).stdout).toBe('<x><y z>2\n');
    expect((await sh('echo $$')).stdout).toBe('1\n');
    expect((await sh('echo cost: $5.00')).stdout).toBe('cost: .00\n');
    expect((await sh('echo a$')).stdout).toBe('a$\n');
  });

  it('keeps unexported variables to itself; export and assignments before a command reach programs', async () => {
    expect((await sh('X=1; echo $X; printenv X || echo unset')).stdout).toBe('1\nunset\n');
    expect((await sh('export X=2; printenv X; unset X; printenv X; echo $?')).stdout).toBe('2\n1\n');
    expect((await sh('Y=3 printenv Y; echo "[$Y]"')).stdout).toBe('3\n[]\n');
    expect((await sh('env | grep -q x')).stderr).toBe('sh: 1: grep: not found\n');
  });

  it('fails a command it does not have as dash does (127), and bash as bash does', async () => {
    expect(await sh('foo --bar; echo after $?')).toEqual({
      stdout: 'after 127\n',
      stderr: 'sh: 1: foo: not found\n',
      exitCode: 0,
    });
    expect(await sh('echo a\nnope')).toEqual({
      stdout: 'a\n',
      stderr: 'sh: 2: nope: not found\n',
      exitCode: 127,
    });
    expect(await run(['/bin/sh', '-c', 'nginx'])).toMatchObject({ stderr: '/bin/sh: 1: nginx: not found\n' });
    expect(await run(['bash', '-c', 'foo'])).toMatchObject({
      stderr: 'bash: line 1: foo: command not found\n',
      exitCode: 127,
    });
    expect((await sh('/opt/app/bin/server')).stderr).toBe('sh: 1: /opt/app/bin/server: not found\n');
    expect(await sh('/bin/echo via path; /usr/bin/env | head')).toMatchObject({
      stdout: 'via path\n',
      stderr: 'sh: 1: head: not found\n',
    });
  });

  it('reports syntax errors with dash’s words, status 2, and says what the subset does not run', async () => {
    expect(await sh("echo 'open")).toEqual({
      stdout: '',
      stderr: 'sh: 1: Syntax error: Unterminated quoted string\n',
      exitCode: 2,
    });
    expect((await sh('echo a &&')).stderr).toBe('sh: 1: Syntax error: end of file unexpected\n');
    expect((await sh('&& echo')).stderr).toBe('sh: 1: Syntax error: "&&" unexpected\n');
    expect((await sh('if true; then echo x; fi')).stderr).toBe(
      'sh: 1: Syntax error: "if" is not simulated (only simple commands and lists)\n',
    );
    expect((await sh('sleep 1 &')).stderr).toBe(
      'sh: 1: Syntax error: background commands (&) are not simulated\n',
    );
    expect((await sh('echo $(date)')).stderr).toBe(
      'sh: 1: Syntax error: command substitution ($(…)) is not simulated\n',
    );
    const error = (() => {
      try {
        parseScript('echo "a');
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(ShellSyntaxError);
    expect((error as ShellSyntaxError).incomplete).toBe(true);
  });

  it('honours -e, -u, -x and set -o pipefail', async () => {
    expect(await run(['sh', '-ec', 'echo one; false; echo never'])).toMatchObject({
      stdout: 'one\n',
      exitCode: 1,
    });
    expect((await run(['sh', '-ec', 'false || echo tested; false && echo no; echo reached'])).stdout).toBe(
      'tested\nreached\n',
    );
    expect(await run(['sh', '-uc', 'echo $NOPE; echo never'])).toEqual({
      stdout: '',
      stderr: 'sh: 1: NOPE: parameter not set\n',
      exitCode: 2,
    });
    expect(await run(['sh', '-xc', 'echo "a b"'])).toMatchObject({ stdout: 'a b\n', stderr: '+ echo a b\n' });
    expect((await sh('false | true; echo $?; set -o pipefail; false | true; echo $?')).stdout).toBe('0\n1\n');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    expect(await sh(': ${REQUIRED:?is needed}')).toEqual({
      stdout: '',
      stderr: 'sh: 1: REQUIRED: is needed\n',
      exitCode: 2,
    });
  });

  it('redirects to the other stream and /dev/null; there is no file system to write', async () => {
    // In order: `2>&1 1>&2` leaves both on stdout, `1>&2 2>&1` both on stderr.
    expect(
      await sh('echo out; echo err >&2; echo one 2>&1 1>&2; echo two 1>&2 2>&1; echo gone >/dev/null'),
    ).toEqual({
      stdout: 'out\none\n',
      stderr: 'err\ntwo\n',
      exitCode: 0,
    });
    expect(await sh('echo x > /tmp/file')).toEqual({
      stdout: '',
      stderr: 'sh: 1: cannot create /tmp/file: Read-only file system\n',
      exitCode: 2,
    });
    expect((await sh('cat /etc/passwd; cat < /dev/null; echo $?')).stderr).toBe(
      'cat: /etc/passwd: No such file or directory\n',
    );
  });

  it('pipes each stage’s output into the next; exit in a stage ends only the stage', async () => {
    expect((await sh('echo piped | cat | cat')).stdout).toBe('piped\n');
    expect((await sh('exit 4 | echo next; echo $?')).stdout).toBe('next\n0\n');
  });

  it('reads stdin when it has no -c: a script a line at a time, no prompt without a terminal', async () => {
    expect(await run(['sh'], 'echo a\nprintenv GREETING\nexit 5\necho never\n')).toEqual({
      stdout: 'a\nhello  world\n',
      stderr: '',
      exitCode: 5,
    });
    expect(await run(['sh'], 'false\n')).toMatchObject({ exitCode: 1 });
    expect(await run(['sh'], 'echo "open\nclosed"\n')).toMatchObject({ stdout: 'open\nclosed\n' });
    // A non-interactive shell stops at a syntax error.
    expect(await run(['sh'], 'echo a && && b\necho never\n')).toMatchObject({
      stdout: '',
      stderr: 'sh: 1: Syntax error: "&&" unexpected\n',
      exitCode: 2,
    });
    // Without stdin (stdin: false) it reads /dev/null and ends at once.
    expect(await run(['sh'])).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(await run(['sh'], 'read A B; echo "[$A] [$B]"\n')).toMatchObject({ stdout: '[] []\n' });
    expect(await run(['sh'], 'read A B\none two three\necho "[$A] [$B]"\n')).toMatchObject({
      stdout: '[one] [two three]\n',
    });
  });

  it('refuses bad options and a script file it cannot open', async () => {
    expect(await run(['sh', '-c'])).toEqual({
      stdout: '',
      stderr: 'sh: 0: -c requires an argument\n',
      exitCode: 2,
    });
    expect(await run(['sh', '-Q', '-c', 'x'])).toMatchObject({
      stderr: 'sh: 0: Illegal option -Q\n',
      exitCode: 2,
    });
    expect(await sh('sh /app/run.sh')).toMatchObject({
      stderr: 'sh: 0: cannot open /app/run.sh: No such file\n',
    });
    expect(await run(['bash', '-lc', 'echo login; exit 7'])).toMatchObject({
      stdout: 'login\n',
      exitCode: 7,
    });
  });
});

describe('the programs', () => {
  it('echo: GNU /bin/echo needs -e for escapes; dash’s builtin always interprets them', async () => {
    expect((await run(['echo', '-n', 'a', 'b'])).stdout).toBe('a b');
    expect((await run(['echo', 'a\\tb'])).stdout).toBe('a\\tb\n');
    expect((await run(['echo', '-e', 'a\\tb\\c', 'never'])).stdout).toBe('a\tb');
    expect((await sh('echo "a\\tb"; echo -n x; echo -e y')).stdout).toBe('a\tb\nx-e y\n');
    expect((await run(['bash', '-c', 'echo "a\\tb"; echo -e "c\\td"'])).stdout).toBe('a\\tb\nc\td\n');
    expect(echoText(['-nE', 'x\\n'], 'gnu')).toBe('x\\n');
    expect(echoText(['\\0101\\0102'], 'dash')).toBe('AB\n');
  });

  it('printf: conversions, flags, width, precision, escapes; the format is reused for the rest', () => {
    expect(
      printfText('%s-%d %5.2f|%-4s|%04d|%x|%o|%c|%%\\n', ['a', '42', '3.14159', 'x', '7', '255', '8', 'yes']),
    ).toEqual({ text: 'a-42  3.14|x   |0007|ff|10|y|%\n', errors: [] });
    expect(printfText('%s=%s\\n', ['a', '1', 'b', '2', 'c']).text).toBe('a=1\nb=2\nc=\n');
    expect(printfText('no args\\n', ['ignored']).text).toBe('no args\n');
    expect(printfText('%d %d\\n', ['12abc', "'A"])).toEqual({
      text: '12 65\n',
      errors: ['12abc: expected numeric value'],
    });
    expect(
      printfText('%5s|%.2s|%*d|%e|%g|%b', ['ab', 'xyz', '4', '7', '1234.5', '0.0001', 'x\\ty']).text,
    ).toBe('   ab|xy|   7|1.234500e+03|0.0001|x\ty');
    expect(printfText('%+d % d %#x %#o', ['5', '5', '255', '8']).text).toBe('+5  5 0xff 010');
  });

  it('printf as a program and as dash’s builtin reports a bad number and still prints', async () => {
    expect(await run(['printf', '%d\\n', 'x'])).toEqual({
      stdout: '0\n',
      stderr: 'printf: x: expected numeric value\n',
      exitCode: 1,
    });
    expect(await sh('printf "%d\\n" x')).toEqual({
      stdout: '0\n',
      stderr: 'sh: 1: printf: x: expected numeric value\n',
      exitCode: 1,
    });
  });

  it('printenv and env print the container’s environment; env runs a command with changes', async () => {
    expect((await run(['printenv', 'GREETING', 'HOSTNAME'])).stdout).toBe('hello  world\nweb-1\n');
    expect(await run(['printenv', 'NOPE'])).toEqual({ stdout: '', stderr: '', exitCode: 1 });
    expect((await run(['printenv'])).stdout).toBe(
      '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'.replace(/^/, 'PATH=') +
        '\nHOSTNAME=web-1\nGREETING=hello  world\nEMPTY=\n',
    );
    expect((await run(['env', '-i', 'A=1', 'B=2', 'printenv'])).stdout).toBe('A=1\nB=2\n');
    expect((await run(['env', '-u', 'GREETING', 'printenv', 'GREETING'])).exitCode).toBe(1);
    expect(await run(['env', 'nosuch'])).toEqual({
      stdout: '',
      stderr: "env: 'nosuch': No such file or directory\n",
      exitCode: 127,
    });
    expect((await run(['/usr/bin/env', 'X=1', 'sh', '-c', 'echo $X'])).stdout).toBe('1\n');
    expect((await run(['hostname'])).stdout).toBe('web-1\n');
  });

  it('cat copies stdin to stdout until the end of input', async () => {
    expect(await run(['cat'], 'line one\nline two')).toEqual({
      stdout: 'line one\nline two',
      stderr: '',
      exitCode: 0,
    });
    expect(await run(['cat'])).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect((await run(['sh', '-c', 'cat; echo after'], 'in\n')).stdout).toBe('in\nafter\n');
  });

  it('sleep waits on a real timer and a kill ends it (no timer left behind)', async () => {
    expect(await run(['sleep', '0.01'])).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(await run(['sleep', 'soon'])).toEqual({
      stdout: '',
      stderr: "sleep: invalid time interval 'soon'\nTry 'sleep --help' for more information.\n",
      exitCode: 1,
    });
    expect(sleepDuration(['1.5', '2m', '1h', '1d'])).toEqual({ ms: 1500 + 120_000 + 3_600_000 + 86_400_000 });
    expect(sleepDuration(['infinity'])).toEqual({ ms: Number.POSITIVE_INFINITY });
    expect(sleepDuration([])).toEqual({
      error: "sleep: missing operand\nTry 'sleep --help' for more information.",
    });

    for (const argv of [
      ['sleep', '3600'],
      ['sleep', 'infinity'],
      ['sh', '-c', 'sleep 3600; echo never'],
    ]) {
      const { process, out } = start(argv);
      process.kill('SIGTERM');
      expect(await process.exited).toEqual({ exitCode: 143, signal: 'SIGTERM' });
      expect(out.stdout).toBe('');
    }
    const { process } = start(['sleep', '3600']);
    process.kill('SIGKILL');
    expect(await process.exited).toEqual({ exitCode: 137, signal: 'SIGKILL' });
  });
});

describe('a program kube-sim does not have', () => {
  it('stands in for the real one in the container’s own command: a server runs until stopped', async () => {
    const { process, out } = start([
      'sh',
      '-c',
      'echo starting; sed -i "s/80/5000/" /etc/nginx/conf.d/default.conf && exec nginx -g "daemon off;"',
    ]);
    await until(() => out.stdout === 'starting\n', 'the first line');
    expect(process.running).toBe(true);
    process.kill('SIGTERM');
    expect(await process.exited).toEqual({ exitCode: 143, signal: 'SIGTERM' });
    expect(out.stderr).toBe('');
  });

  it('in a Job’s command it takes its while and exits with the Job’s status, and the script goes on', async () => {
    const job = { exitAfterMs: 5, exitCode: 0 };
    expect(
      await run(
        ['sh', '-c', 'echo a; rake db:migrate && echo b; env X=1 bundle exec rake; echo $?'],
        undefined,
        job,
      ),
    ).toEqual({
      stdout: 'a\nb\n0\n',
      stderr: '',
      exitCode: 0,
    });
    expect(
      await run(['sh', '-c', 'exec rake db:migrate; echo never'], undefined, { exitAfterMs: 5, exitCode: 1 }),
    ).toEqual({
      stdout: '',
      stderr: '',
      exitCode: 1,
    });
  });

  it('so does a script in shell the subset does not run; a real syntax error is still one', async () => {
    const loop = ['sh', '-c', 'while true; do echo "tick $(date)"; sleep 30; done'];
    expect(await run(loop, undefined, { exitAfterMs: 5, exitCode: 0 })).toEqual({
      stdout: '',
      stderr: '',
      exitCode: 0,
    });
    expect((await run(loop)).stderr).toBe(
      'sh: 1: Syntax error: command substitution ($(…)) is not simulated\n',
    );
    expect(await run(['sh', '-c', "echo 'open"], undefined, { exitAfterMs: 5, exitCode: 0 })).toMatchObject({
      stderr: 'sh: 1: Syntax error: Unterminated quoted string\n',
      exitCode: 2,
    });
  });

  it('is not found when exec’d, or typed into a shell reading stdin', async () => {
    expect(await run(['nginx'])).toEqual({
      stdout: '',
      stderr: 'exec: "nginx": executable file not found in $PATH\n',
      exitCode: 127,
    });
    expect(await run(['sh'], 'rake db:migrate\necho $?\n', { exitAfterMs: 5, exitCode: 0 })).toEqual({
      stdout: '127\n',
      stderr: 'sh: 1: rake: not found\n',
      exitCode: 0,
    });
    expect((await run(['sh'], 'sh -c nope\n', { exitAfterMs: 5, exitCode: 0 })).stderr).toBe(
      'sh: 1: nope: not found\n',
    );
  });
});

describe('what runs and what is a server', () => {
  it('classifies: the programs and shell scripts run; anything else (and the image default) serves', () => {
    for (const argv of [
      ['echo', 'hi'],
      ['/bin/sh', '-c', 'nginx'],
      ['bash', '-lc', 'x'],
      ['sh'],
      ['sleep', 'infinity'],
      ['printenv'],
    ])
      expect(classifyCommand(argv), argv.join(' ')).toBe('interpreted');
    for (const argv of [
      [],
      ['nginx', '-g', 'daemon off;'],
      ['bundle', 'exec', 'puma'],
      ['sh', '/app/start.sh'],
      ['exit', '3'],
      ['/opt/echo'],
    ])
      expect(classifyCommand(argv), argv.join(' ')).toBe('unknown');
  });

  it('a server reads nothing, prints nothing and runs until stopped — or exits as a Job pod’s would', async () => {
    const { process, out } = start(['nginx', '-g', 'daemon off;'], { stdin: true });
    expect(process.interpreted).toBe(false);
    process.write('ignored\n');
    expect(process.running).toBe(true);
    process.kill('SIGTERM');
    expect(await process.exited).toEqual({ exitCode: 143, signal: 'SIGTERM' });
    expect(out).toEqual({ stdout: '', stderr: '' });

    const job = spawnProcess({
      argv: ['rake', 'db:migrate'],
      env: ENV,
      hostname: 'x',
      unknown: { exitAfterMs: 5, exitCode: 1 },
    });
    expect(await job.exited).toEqual({ exitCode: 1 });
  });
});

describe('an interactive shell on a terminal', () => {
  const typed = async (
    process: ContainerProcess,
    out: { stdout: string },
    keys: string,
    expected: string,
  ) => {
    process.write(keys);
    await until(
      () => out.stdout.endsWith(expected),
      `the screen to end with ${JSON.stringify(expected)}:\n${out.stdout}`,
    );
  };

  it('prompts, echoes what is typed, runs each line and ends at exit N', async () => {
    const { process, out } = start(['sh'], { stdin: true, tty: true });
    await until(() => out.stdout === '# ', 'the prompt');
    await typed(process, out, 'echo $GREETING\r', '# ');
    await typed(process, out, 'nope\r', '# ');
    await typed(process, out, 'exit 4\r', 'exit 4\r\n');
    expect(await process.exited).toEqual({ exitCode: 4 });
    // One stream on a tty: stderr is on the screen too, every NL leaves as CR NL.
    expect(out).toEqual({
      stdout: '# echo $GREETING\r\nhello world\r\n# nope\r\nsh: 2: nope: not found\r\n# exit 4\r\n',
      stderr: '',
    });
  });

  it('Ctrl-C interrupts the running command (status 130) and the shell goes on; Ctrl-D at a prompt ends it', async () => {
    const { process, out } = start(['sh'], { stdin: true, tty: true });
    await until(() => out.stdout === '# ', 'the prompt');
    await typed(process, out, 'sleep 3600\r', 'sleep 3600\r\n');
    await typed(process, out, '\x03', '^C\r\n# ');
    await typed(process, out, 'echo $?\r', '130\r\n# ');
    await typed(process, out, 'half a li\x03', 'half a li^C\r\n# ');
    process.write('\x04');
    expect(await process.exited).toEqual({ exitCode: 130 });
  });

  it('stty size prints the size the last resize set (0 0 before any); without a terminal it fails', async () => {
    const { process, out } = start(['sh'], { stdin: true, tty: true });
    await until(() => out.stdout === '# ', 'the prompt');
    await typed(process, out, 'stty size\r', '0 0\r\n# ');
    process.resize(120, 30);
    await typed(process, out, 'stty size\r', '30 120\r\n# ');
    process.write('exit\r');
    expect(await process.exited).toEqual({ exitCode: 0 });
    const piped = await sh('stty size');
    expect(piped.stderr).toMatch(/Inappropriate ioctl for device/);
    expect(piped.exitCode).toBe(1);
  });

  it('continues an open quote on the next line with a > prompt; backspace erases', async () => {
    const { process, out } = start(['sh'], { stdin: true, tty: true });
    await until(() => out.stdout === '# ', 'the prompt');
    await typed(process, out, 'echo "a\r', '\r\n> ');
    await typed(process, out, 'bx\x7f"\r', 'a\r\nb\r\n# ');
    expect(out.stdout).toBe('# echo "a\r\n> bx\b \b"\r\na\r\nb\r\n# ');
    process.write('exit\r');
    expect(await process.exited).toEqual({ exitCode: 0 });
  });

  it('bash prompts root@host:dir#; cat on a terminal reads lines until Ctrl-D, Ctrl-C kills it', async () => {
    const { process, out } = start(['bash'], { stdin: true, tty: true });
    await until(() => out.stdout === 'root@web-1:/# ', 'bash’s prompt');
    await typed(process, out, 'cat\r', 'cat\r\n');
    await typed(process, out, 'typed\r', 'typed\r\ntyped\r\n');
    await typed(process, out, '\x04', 'root@web-1:/# ');
    await typed(process, out, 'foo\r', 'bash: foo: command not found\r\nroot@web-1:/# ');
    process.write('exit 9\r');
    expect(await process.exited).toEqual({ exitCode: 9 });

    const cat = start(['cat'], { stdin: true, tty: true });
    await typed(cat.process, cat.out, 'x\r', 'x\r\nx\r\n');
    cat.process.write('\x03');
    expect(await cat.process.exited).toEqual({ exitCode: 130, signal: 'SIGINT' });
    expect(cat.out.stdout).toBe('x\r\nx\r\n^C');
  });

  it('stdin closed (endInput) is the end of input for good; writes after it are dropped', async () => {
    const { process, out } = start(['sh'], { stdin: true, tty: true });
    await until(() => out.stdout === '# ', 'the prompt');
    process.endInput();
    expect(await process.exited).toEqual({ exitCode: 0 });
    process.write('echo late\r');
    expect(out.stdout).toBe('# ');
    expect(process.stdinOpen).toBe(false);
  });

  it('keeps the terminal size it is given', () => {
    const { process } = start(['sh'], { stdin: true, tty: true });
    process.resize(120, 40);
    expect(process.size).toEqual({ cols: 120, rows: 40 });
    process.resize(0, 10);
    expect(process.size).toEqual({ cols: 120, rows: 40 });
    process.kill('SIGKILL');
  });
});
