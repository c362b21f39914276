/**
 * The syntax of kube-sim's shell subset (pure): words with single and double quotes, backslash
 * escapes, `$NAME`, `${NAME}`, `${NAME:-word}` (and `-`, `:+`, `+`, `:=`, `=`, `:?`, `?`), `${#NAME}`,
 * the special parameters `$?`, `$$`, `$#`, `$@`, `$*`, `$0`–`$9`; lists with `;`, newlines, `&&`,
 * `||`, pipelines with `|` and `!`; assignments before a command; redirections `>`, `>>`, `<` and
 * `N>&M`; `#` comments. Compound commands (`if`, `for`, `while`, `case`, `( … )`, `{ … }`),
 * functions, `&`, command substitution and here-documents are refused with a syntax error that says
 * so, rather than run half-understood.
 *
 * Errors follow dash's wording (`Syntax error: Unterminated quoted string`, `Syntax error: "&&"
 * unexpected`, `Syntax error: end of file unexpected`); `incomplete` marks the ones a further input
 * line could complete (an open quote, a trailing `&&`), which an interactive shell answers with
 * its `> ` prompt.
 */

export type ParamOp = ':-' | '-' | ':+' | '+' | ':=' | '=' | ':?' | '?';

export type WordPart =
  | { kind: 'text'; text: string; quoted: boolean }
  | { kind: 'param'; name: string; quoted: boolean; op?: ParamOp; word?: WordPart[]; length?: boolean };

export type Word = WordPart[];

export interface Redirect {
  fd: number;
  op: '>' | '>>' | '<' | '>&' | '<&';
  target: Word;
}

export interface SimpleCommand {
  assignments: { name: string; value: Word }[];
  words: Word[];
  redirects: Redirect[];
  line: number;
}

export interface Pipeline {
  negate: boolean;
  commands: SimpleCommand[];
}

export interface AndOrList {
  first: Pipeline;
  rest: { op: '&&' | '||'; pipeline: Pipeline }[];
}

export type Script = AndOrList[];

export class ShellSyntaxError extends Error {
  constructor(
    readonly detail: string,
    readonly line: number,
    /** More input could complete it (open quote, trailing operator). */
    readonly incomplete: boolean,
    /** Valid shell the subset does not run (`if`, `&`, `$(…)`), rather than a mistake. */
    readonly unsupported = false,
  ) {
    super(`Syntax error: ${detail}`);
    this.name = 'ShellSyntaxError';
  }
}

/** Reserved words and constructs the subset does not run. */
const UNSUPPORTED_WORDS = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'while',
  'until',
  'do',
  'done',
  'case',
  'esac',
  'function',
  'select',
  '{',
  '}',
  '[[',
]);

type Token =
  | { type: 'word'; word: Word; raw: string; line: number }
  | { type: 'op'; op: string; line: number }
  | { type: 'redirect'; fd: number; op: Redirect['op']; line: number };

const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;
const SPECIAL_PARAMS = new Set(['?', '$', '#', '@', '*', '!', '-']);

class Lexer {
  pos = 0;
  line: number;

  constructor(
    readonly src: string,
    firstLine: number,
  ) {
    this.line = firstLine;
  }

  private error(detail: string, incomplete = false): never {
    throw new ShellSyntaxError(detail, this.line, incomplete);
  }

  private notSimulated(detail: string): never {
    throw new ShellSyntaxError(detail, this.line, false, true);
  }

  tokens(): Token[] {
    const out: Token[] = [];
    const src = this.src;
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      if (c === ' ' || c === '\t' || c === '\r') {
        this.pos++;
        continue;
      }
      if (c === '\\' && src[this.pos + 1] === '\n') {
        this.pos += 2;
        this.line++;
        continue;
      }
      if (c === '#') {
        while (this.pos < src.length && src[this.pos] !== '\n') this.pos++;
        continue;
      }
      if (c === '\n') {
        out.push({ type: 'op', op: '\n', line: this.line });
        this.pos++;
        this.line++;
        continue;
      }
      const redirect = /^(\d*)(>>|>&|<&|>|<)/.exec(src.slice(this.pos, this.pos + 12));
      if (redirect) {
        const [all, digits, op] = redirect;
        if (src.startsWith('<<', this.pos + digits!.length))
          this.notSimulated('here-documents (<<) are not simulated');
        this.pos += all.length;
        const fd = digits ? Number(digits) : op!.startsWith('<') ? 0 : 1;
        out.push({ type: 'redirect', fd, op: op as Redirect['op'], line: this.line });
        continue;
      }
      if (c === ';') {
        if (src[this.pos + 1] === ';') this.notSimulated('";;" unexpected (case is not simulated)');
        out.push({ type: 'op', op: ';', line: this.line });
        this.pos++;
        continue;
      }
      if (c === '&' || c === '|') {
        const double = src[this.pos + 1] === c;
        if (c === '&' && !double) this.notSimulated('background commands (&) are not simulated');
        out.push({ type: 'op', op: double ? c + c : c, line: this.line });
        this.pos += double ? 2 : 1;
        continue;
      }
      if (c === '(' || c === ')') this.notSimulated(`"${c}" unexpected (subshells are not simulated)`);
      const start = this.pos;
      const line = this.line;
      const word = this.readWord();
      out.push({ type: 'word', word, raw: src.slice(start, this.pos), line });
    }
    return out;
  }

  private isMeta(c: string): boolean {
    return ' \t\r\n;&|()<>'.includes(c);
  }

  /** An unquoted word up to the next metacharacter. */
  private readWord(): Word {
    const parts: Word = [];
    let text = '';
    const flush = () => {
      if (text) parts.push({ kind: 'text', text, quoted: false });
      text = '';
    };
    const src = this.src;
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      if (this.isMeta(c)) break;
      if (c === "'") {
        flush();
        const end = src.indexOf("'", this.pos + 1);
        if (end < 0) this.error('Unterminated quoted string', true);
        const quoted = src.slice(this.pos + 1, end);
        this.line += quoted.split('\n').length - 1;
        parts.push({ kind: 'text', text: quoted, quoted: true });
        this.pos = end + 1;
      } else if (c === '"') {
        flush();
        this.pos++;
        parts.push(...this.readDoubleQuoted());
      } else if (c === '\\') {
        if (this.pos + 1 >= src.length) {
          this.pos++;
          text += '\\';
          continue;
        }
        flush();
        const next = src[this.pos + 1]!;
        this.pos += 2;
        if (next === '\n') {
          this.line++;
          continue;
        }
        parts.push({ kind: 'text', text: next, quoted: true });
      } else if (c === '$') {
        const param = this.readDollar(false);
        if (param) {
          flush();
          parts.push(param);
        } else text += '$';
      } else if (c === '`') {
        this.notSimulated('command substitution (`…`) is not simulated');
      } else {
        text += c;
        this.pos++;
      }
    }
    flush();
    return parts;
  }

  /** After an opening `"`: up to the closing one. `""` is one empty quoted part (an empty field). */
  private readDoubleQuoted(): WordPart[] {
    const parts: WordPart[] = [];
    let text = '';
    const flush = () => {
      if (text) parts.push({ kind: 'text', text, quoted: true });
      text = '';
    };
    const src = this.src;
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      if (c === '"') {
        this.pos++;
        flush();
        if (parts.length === 0) parts.push({ kind: 'text', text: '', quoted: true });
        return parts;
      }
      if (c === '\\') {
        const next = src[this.pos + 1];
        if (next !== undefined && '$`"\\\n'.includes(next)) {
          this.pos += 2;
          if (next === '\n') this.line++;
          else text += next;
          continue;
        }
        text += c;
        this.pos++;
      } else if (c === '$') {
        const param = this.readDollar(true);
        if (param) {
          flush();
          parts.push(param);
        } else text += '$';
      } else if (c === '`') {
        this.notSimulated('command substitution (`…`) is not simulated');
      } else {
        if (c === '\n') this.line++;
        text += c;
        this.pos++;
      }
    }
    this.error('Unterminated quoted string', true);
  }

  /** At a `$`: a parameter expansion, or undefined when the `$` is literal (it is consumed then). */
  private readDollar(quoted: boolean): WordPart | undefined {
    const src = this.src;
    const next = src[this.pos + 1];
    if (next === '(') this.notSimulated('command substitution ($(…)) is not simulated');
    if (next === '{') {
      this.pos += 2;
      return this.readBraced(quoted);
    }
    if (next !== undefined && (SPECIAL_PARAMS.has(next) || /[0-9]/.test(next))) {
      this.pos += 2;
      return { kind: 'param', name: next, quoted };
    }
    if (next !== undefined && NAME_START.test(next)) {
      let end = this.pos + 1;
      while (end < src.length && NAME_CHAR.test(src[end]!)) end++;
      const name = src.slice(this.pos + 1, end);
      this.pos = end;
      return { kind: 'param', name, quoted };
    }
    this.pos++;
    return undefined;
  }

  /** After `${`: NAME, #NAME, NAME<op>word, up to the matching `}`. */
  private readBraced(quoted: boolean): WordPart {
    const src = this.src;
    let length = false;
    if (src[this.pos] === '#' && src[this.pos + 1] !== '}') {
      length = true;
      this.pos++;
    }
    let name = '';
    const first = src[this.pos];
    if (first !== undefined && (SPECIAL_PARAMS.has(first) || /[0-9]/.test(first))) {
      name = first;
      this.pos++;
      while (/[0-9]/.test(name) && /[0-9]/.test(src[this.pos] ?? '')) name += src[this.pos++];
    } else {
      while (this.pos < src.length && NAME_CHAR.test(src[this.pos]!)) name += src[this.pos++];
    }
    if (this.pos >= src.length) this.error("Missing '}'", true);
    if (!name) this.error('Bad substitution');
    if (src[this.pos] === '}') {
      this.pos++;
      return { kind: 'param', name, quoted, ...(length ? { length } : {}) };
    }
    if (length) this.error('Bad substitution');
    const opMatch = /^(:-|:\+|:=|:\?|-|\+|=|\?)/.exec(src.slice(this.pos, this.pos + 2));
    if (!opMatch) this.error('Bad substitution');
    const op = opMatch[1] as ParamOp;
    this.pos += op.length;
    const word = this.readBracedWord(quoted);
    return { kind: 'param', name, quoted, op, word };
  }

  /** The word of `${NAME:-word}`: quotes and expansions inside, up to the closing `}`. */
  private readBracedWord(quoted: boolean): WordPart[] {
    const parts: WordPart[] = [];
    let text = '';
    const flush = () => {
      if (text) parts.push({ kind: 'text', text, quoted });
      text = '';
    };
    const src = this.src;
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      if (c === '}') {
        this.pos++;
        flush();
        return parts;
      }
      if (c === "'" && !quoted) {
        flush();
        const end = src.indexOf("'", this.pos + 1);
        if (end < 0) this.error('Unterminated quoted string', true);
        parts.push({ kind: 'text', text: src.slice(this.pos + 1, end), quoted: true });
        this.pos = end + 1;
      } else if (c === '"' && !quoted) {
        flush();
        this.pos++;
        parts.push(...this.readDoubleQuoted());
      } else if (c === '\\' && this.pos + 1 < src.length) {
        flush();
        parts.push({ kind: 'text', text: src[this.pos + 1]!, quoted: true });
        this.pos += 2;
      } else if (c === '$') {
        const param = this.readDollar(quoted);
        if (param) {
          flush();
          parts.push(param);
        } else text += '$';
      } else {
        if (c === '\n') this.line++;
        text += c;
        this.pos++;
      }
    }
    this.error("Missing '}'", true);
  }
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=/;

/** Splits `NAME=value` off a word when its name part is unquoted literal text. */
function assignmentOf(word: Word): { name: string; value: Word } | undefined {
  const first = word[0];
  if (first?.kind !== 'text' || first.quoted) return undefined;
  const match = ASSIGNMENT.exec(first.text);
  if (!match) return undefined;
  const rest = first.text.slice(match[0].length);
  const value: Word = [...(rest ? [{ ...first, text: rest }] : []), ...word.slice(1)];
  return { name: match[1]!, value };
}

class Parser {
  private i = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly endLine: number,
  ) {}

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }

  private unexpected(token: Token | undefined): never {
    if (!token) throw new ShellSyntaxError('end of file unexpected', this.endLine, true);
    const shown =
      token.type === 'op'
        ? token.op === '\n'
          ? 'newline'
          : token.op
        : token.type === 'redirect'
          ? token.op
          : token.raw;
    throw new ShellSyntaxError(`"${shown}" unexpected`, token.line, false);
  }

  private skipNewlines(): void {
    while (this.peek()?.type === 'op' && (this.peek() as { op: string }).op === '\n') this.i++;
  }

  script(): Script {
    const lists: Script = [];
    for (;;) {
      while (this.peek()?.type === 'op' && ['\n', ';'].includes((this.peek() as { op: string }).op)) {
        const t = this.peek() as { op: string };
        if (t.op === ';') this.unexpected(this.peek());
        this.i++;
      }
      if (!this.peek()) return lists;
      lists.push(this.andOr());
      const t = this.peek();
      if (!t) return lists;
      if (t.type === 'op' && (t.op === ';' || t.op === '\n')) {
        this.i++;
        continue;
      }
      this.unexpected(t);
    }
  }

  private andOr(): AndOrList {
    const first = this.pipeline();
    const rest: AndOrList['rest'] = [];
    for (;;) {
      const t = this.peek();
      if (t?.type !== 'op' || (t.op !== '&&' && t.op !== '||')) return { first, rest };
      this.i++;
      this.skipNewlines();
      rest.push({ op: t.op, pipeline: this.pipeline() });
    }
  }

  private pipeline(): Pipeline {
    let negate = false;
    const t = this.peek();
    if (t?.type === 'word' && t.raw === '!') {
      negate = true;
      this.i++;
    }
    const commands = [this.simple()];
    for (;;) {
      const p = this.peek();
      if (p?.type !== 'op' || p.op !== '|') return { negate, commands };
      this.i++;
      this.skipNewlines();
      commands.push(this.simple());
    }
  }

  private simple(): SimpleCommand {
    const start = this.peek();
    if (!start || start.type === 'op') this.unexpected(start);
    const command: SimpleCommand = { assignments: [], words: [], redirects: [], line: start.line };
    for (;;) {
      const t = this.peek();
      if (!t || t.type === 'op') break;
      this.i++;
      if (t.type === 'redirect') {
        const target = this.peek();
        if (target?.type !== 'word') this.unexpected(target);
        this.i++;
        command.redirects.push({ fd: t.fd, op: t.op, target: target.word });
        continue;
      }
      if (command.words.length === 0) {
        if (UNSUPPORTED_WORDS.has(t.raw))
          throw new ShellSyntaxError(
            `"${t.raw}" is not simulated (only simple commands and lists)`,
            t.line,
            false,
            true,
          );
        const assignment = assignmentOf(t.word);
        if (assignment) {
          command.assignments.push(assignment);
          continue;
        }
      }
      command.words.push(t.word);
    }
    if (command.words.length === 0 && command.assignments.length === 0 && command.redirects.length === 0)
      this.unexpected(this.peek());
    return command;
  }
}

/** Parses a script (the text of `sh -c`, or one line of input from `firstLine` on). */
export function parseScript(src: string, firstLine = 1): Script {
  const lexer = new Lexer(src, firstLine);
  const tokens = lexer.tokens();
  return new Parser(tokens, lexer.line).script();
}
