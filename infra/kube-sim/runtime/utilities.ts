/**
 * The text work of the simulated utilities (pure): `echo` as dash's builtin and as GNU coreutils'
 * /bin/echo (and bash's builtin) do it, `printf` (POSIX: %s %b %c %d %i %u %o %x %X %e %f %g %%,
 * flags, width, precision, `*`, the format reused while arguments remain), and GNU `sleep`'s
 * durations (`1.5`, `2m`, `infinity`).
 */

/** Which echo: dash's builtin always interprets backslash escapes and knows only -n; GNU's and bash's need -e. */
export type EchoFlavor = 'dash' | 'gnu';

/** Backslash escapes of echo -e / %b / dash's echo; returns the text and whether `\c` stopped it. */
export function expandEscapes(
  text: string,
  { echoOctal }: { echoOctal: boolean },
): { text: string; stop: boolean } {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '\\' || i + 1 >= text.length) {
      out += c;
      continue;
    }
    const n = text[++i]!;
    switch (n) {
      case 'a':
        out += '\x07';
        break;
      case 'b':
        out += '\b';
        break;
      case 'c':
        return { text: out, stop: true };
      case 'e':
        out += '\x1b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case '\\':
        out += '\\';
        break;
      case 'x': {
        const hex = /^[0-9a-fA-F]{1,2}/.exec(text.slice(i + 1));
        if (!hex) out += '\\x';
        else {
          out += String.fromCharCode(Number.parseInt(hex[0], 16));
          i += hex[0].length;
        }
        break;
      }
      default: {
        // echo: \0NNN (up to three octal digits after the 0); printf's %b takes the same form.
        if (n === '0' || (!echoOctal && /[0-7]/.test(n))) {
          const digits = /^[0-7]{0,3}/.exec(text.slice(echoOctal ? i + 1 : i))![0];
          const value = Number.parseInt(digits || '0', 8);
          out += String.fromCharCode(value & 0xff);
          i += echoOctal ? digits.length : digits.length - 1;
        } else out += `\\${n}`;
      }
    }
  }
  return { text: out, stop: false };
}

/** echo's output for its arguments (argv without the command name). */
export function echoText(args: string[], flavor: EchoFlavor): string {
  let newline = true;
  let escapes = flavor === 'dash';
  let i = 0;
  if (flavor === 'dash') {
    if (args[0] === '-n') {
      newline = false;
      i = 1;
    }
  } else {
    for (; i < args.length && /^-[neE]+$/.test(args[i]!); i++) {
      for (const flag of args[i]!.slice(1)) {
        if (flag === 'n') newline = false;
        else if (flag === 'e') escapes = true;
        else escapes = false;
      }
    }
  }
  const text = args.slice(i).join(' ');
  if (!escapes) return newline ? `${text}\n` : text;
  const expanded = expandEscapes(text, { echoOctal: true });
  if (expanded.stop) return expanded.text;
  return newline ? `${expanded.text}\n` : expanded.text;
}

/** Escapes in a printf format: as %b, plus \NNN without the leading 0 and \" . */
function formatEscapes(format: string): string {
  return expandEscapes(format.replace(/\\"/g, '"'), { echoOctal: false }).text;
}

export interface PrintfResult {
  text: string;
  /** Diagnostics for stderr (`x: expected numeric value`); status 1 when there are any. */
  errors: string[];
}

const CONVERSION = /%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?([diouxXcsbeEfgG%])/g;

function numericArg(arg: string | undefined, errors: string[]): number {
  if (arg === undefined || arg === '') return 0;
  if (arg[0] === "'" || arg[0] === '"') return arg.length > 1 ? arg.codePointAt(1)! : 0;
  const match =
    /^\s*([-+]?)(0[xX][0-9a-fA-F]+|\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|0[0-7]*|[1-9]\d*(?:[eE][-+]?\d+)?)/.exec(
      arg,
    );
  if (!match) {
    errors.push(`${arg}: expected numeric value`);
    return 0;
  }
  const [all, sign, digits] = match;
  let value: number;
  if (/^0[xX]/.test(digits!)) value = Number.parseInt(digits!, 16);
  else if (/^0[0-7]+$/.test(digits!)) value = Number.parseInt(digits!, 8);
  else value = Number(digits);
  if (all.length !== arg.length) errors.push(`${arg}: expected numeric value`);
  return sign === '-' ? -value : value;
}

function pad(text: string, width: number, left: boolean, zero: boolean): string {
  if (text.length >= width) return text;
  if (left) return text.padEnd(width, ' ');
  if (zero) {
    const sign = /^[-+ ]/.test(text) ? text[0]! : '';
    const prefix = /^[-+ ]?0[xX]/.test(text) ? text.slice(0, sign.length + 2) : sign;
    return prefix + text.slice(prefix.length).padStart(width - prefix.length, '0');
  }
  return text.padStart(width, ' ');
}

/** C's %e: at least two exponent digits. */
function cExponential(value: number, precision: number): string {
  return value.toExponential(precision).replace(/e([-+])(\d)$/, 'e$10$2');
}

function cGeneral(value: number, precision: number, alt: boolean): string {
  const p = precision === 0 ? 1 : precision;
  if (value === 0) return '0';
  const exponent = Math.floor(Math.log10(Math.abs(value)));
  let text =
    exponent < -4 || exponent >= p
      ? cExponential(value, p - 1)
      : value.toFixed(Math.max(0, p - 1 - exponent));
  if (!alt) text = text.replace(/\.?0+(e|$)/, '$1');
  return text;
}

/** printf FORMAT [ARGUMENT]...: the output and any diagnostics. */
export function printfText(format: string, args: string[]): PrintfResult {
  const errors: string[] = [];
  let out = '';
  let next = 0;
  const take = () => args[next++];
  for (;;) {
    let consumed = false;
    let stopped = false;
    let last = 0;
    CONVERSION.lastIndex = 0;
    for (let m = CONVERSION.exec(format); m; m = CONVERSION.exec(format)) {
      out += formatEscapes(format.slice(last, m.index));
      last = CONVERSION.lastIndex;
      const [, flags = '', widthSpec, precisionSpec, conversion = 's'] = m;
      if (conversion === '%') {
        out += '%';
        continue;
      }
      consumed = true;
      let width = 0;
      let left = flags.includes('-');
      if (widthSpec === '*') {
        width = Math.trunc(numericArg(take(), errors));
        if (width < 0) {
          left = true;
          width = -width;
        }
      } else if (widthSpec) width = Number(widthSpec);
      let precision: number | undefined;
      if (precisionSpec === '*') precision = Math.trunc(numericArg(take(), errors));
      else if (precisionSpec !== undefined) precision = Number(precisionSpec || '0');
      const zero = flags.includes('0') && !left;
      const arg = take();
      let text: string;
      switch (conversion) {
        case 's':
          text = arg ?? '';
          if (precision !== undefined) text = text.slice(0, precision);
          break;
        case 'b': {
          const expanded = expandEscapes(arg ?? '', { echoOctal: true });
          text = expanded.text;
          if (precision !== undefined) text = text.slice(0, precision);
          if (expanded.stop) {
            out += pad(text, width, left, false);
            stopped = true;
          }
          break;
        }
        case 'c':
          text = (arg ?? '').slice(0, 1);
          break;
        case 'd':
        case 'i':
        case 'u':
        case 'o':
        case 'x':
        case 'X': {
          const n = Math.trunc(numericArg(arg, errors));
          const radix = conversion === 'o' ? 8 : conversion === 'x' || conversion === 'X' ? 16 : 10;
          let digits = Math.abs(n).toString(radix);
          if (conversion === 'X') digits = digits.toUpperCase();
          if (precision !== undefined)
            digits = precision === 0 && n === 0 ? '' : digits.padStart(precision, '0');
          if (flags.includes('#') && n !== 0) {
            if (conversion === 'o' && !digits.startsWith('0')) digits = `0${digits}`;
            if (conversion === 'x') digits = `0x${digits}`;
            if (conversion === 'X') digits = `0X${digits}`;
          }
          const sign = n < 0 ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '';
          text = sign + digits;
          if (precision !== undefined) {
            out += pad(text, width, left, false);
            continue;
          }
          break;
        }
        default: {
          const value = numericArg(arg, errors);
          const p = precision ?? 6;
          const lower = conversion.toLowerCase();
          text =
            lower === 'f'
              ? value.toFixed(p)
              : lower === 'e'
                ? cExponential(value, p)
                : cGeneral(value, p, flags.includes('#'));
          if (conversion === 'E' || conversion === 'G') text = text.toUpperCase();
          if (value >= 0 && flags.includes('+')) text = `+${text}`;
          else if (value >= 0 && flags.includes(' ')) text = ` ${text}`;
        }
      }
      if (stopped) break;
      out += pad(text, width, left, zero && conversion !== 's' && conversion !== 'c' && conversion !== 'b');
    }
    if (stopped) break;
    out += formatEscapes(format.slice(last));
    // The format is reused while arguments remain, as long as it consumes any.
    if (!consumed || next >= args.length) break;
  }
  return { text: out, errors };
}

export type SleepArgs = { ms: number } | { error: string };

/** GNU sleep's operands: numbers with an optional s/m/h/d suffix, summed; `inf`/`infinity` forever. */
export function sleepDuration(args: string[]): SleepArgs {
  if (args.length === 0) return { error: "sleep: missing operand\nTry 'sleep --help' for more information." };
  let ms = 0;
  for (const arg of args) {
    if (/^\+?inf(inity)?$/i.test(arg)) return { ms: Number.POSITIVE_INFINITY };
    const match = /^\+?(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(arg);
    if (!match)
      return { error: `sleep: invalid time interval '${arg}'\nTry 'sleep --help' for more information.` };
    const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
    ms += Number(match[1]) * unit * 1000;
  }
  return { ms };
}
