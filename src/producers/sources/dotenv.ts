/**
 * The dotenv format `config:set APP --env-file FILE` and `config:set APP -` read, and
 * `config:show APP --reveal --dotenv` writes (docs/apps.md, "Config from a file"):
 *
 * - `KEY=VALUE` per line; `export KEY=VALUE` too (a file a shell also sources); blank lines and
 *   lines starting with `#` are skipped; whitespace around the key and after `=` is ignored;
 * - unquoted values are trimmed, and a ` #comment` after them is dropped;
 * - single quotes are literal (no escapes), double quotes take `\n`, `\r`, `\t`, `\"`, `\\`, `\$`
 *   and `` \` `` (any other backslash stays as written); both may span lines;
 * - no `$VAR` expansion: a `$` is a `$` (config values are data, not shell).
 *
 * Pure: the text and the name to report in errors go in, the variables come out. Every problem is
 * named by `file:line` with what to do, and nothing is returned until the whole text parses.
 */

import { ENV_NAME_MESSAGE, isEnvName } from '../../../rules/env-names.ts';
import { InvalidInputError } from '../../core/errors.ts';

/** The variables of a dotenv text, in file order; a key given twice keeps its last value. */
export function parseDotenv(text: string, source: string): Record<string, string> {
  const result: Record<string, string> = {};
  const issues: { path: string; message: string }[] = [];
  let pos = 0;
  let lineNo = 0;
  /** The rest of the line at `pos` (without its line break); moves `pos` past the line. */
  const takeLine = (): string => {
    const nl = text.indexOf('\n', pos);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(pos, end);
    pos = nl < 0 ? text.length : nl + 1;
    lineNo++;
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  };
  while (pos < text.length) {
    const lineStart = pos;
    const where = `${source}:${lineNo + 1}`;
    const trimmed = takeLine().trimStart();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const body = trimmed.replace(/^export\s+/, '');
    const eq = body.indexOf('=');
    if (eq < 0) {
      issues.push({
        path: where,
        message: `expected KEY=VALUE, found ${JSON.stringify(clip(trimmed))} (comments start with #)`,
      });
      continue;
    }
    const key = body.slice(0, eq).trim();
    if (!isEnvName(key)) {
      issues.push({
        path: where,
        message: `${JSON.stringify(clip(key))} is not a variable name: it ${ENV_NAME_MESSAGE}`,
      });
      continue;
    }
    const rest = body.slice(eq + 1).trimStart();
    const quote = rest[0];
    if (quote !== '"' && quote !== "'") {
      result[key] = unquoted(rest);
      continue;
    }
    // A quoted value may span lines: read it from the text itself, from just after its quote.
    const open = text.indexOf(quote, text.indexOf('=', lineStart) + 1) + 1;
    const parsed = quote === '"' ? doubleQuoted(text, open) : singleQuoted(text, open);
    if (!parsed) {
      issues.push({
        path: where,
        message: `the value of ${key} opens a ${quote} quote that is never closed; close it with ${quote}${quote === '"' ? ' (write \\" for a quote inside)' : ''}`,
      });
      break;
    }
    for (let j = open; j < parsed.end; j++) if (text[j] === '\n') lineNo++;
    // The closing quote's line: lineNo counts it once takeLine() has read it.
    lineNo--;
    pos = parsed.end;
    const closedAt = `${source}:${lineNo + 1}`;
    const after = takeLine().trim();
    if (after !== '' && !after.startsWith('#')) {
      issues.push({
        path: closedAt,
        message: `unexpected ${JSON.stringify(clip(after))} after the closing ${quote} of ${key}; quote the whole value`,
      });
      continue;
    }
    result[key] = parsed.value;
  }
  if (issues.length > 0) throw new InvalidInputError(issues, `dotenv input ${source}`);
  return result;
}

/** An unquoted value: up to a ` #` comment, trimmed. */
function unquoted(rest: string): string {
  const comment = rest.search(/\s#/);
  return (comment < 0 ? rest : rest.slice(0, comment)).trim();
}

/** A quoted value starting at `from` (just after its quote): the value and where its closing quote ends. */
interface Quoted {
  value: string;
  end: number;
}

function singleQuoted(text: string, from: number): Quoted | undefined {
  const close = text.indexOf("'", from);
  return close < 0 ? undefined : { value: crlf(text.slice(from, close)), end: close + 1 };
}

const ESCAPES: Record<string, string> = {
  n: '\n',
  r: '\r',
  t: '\t',
  '"': '"',
  '\\': '\\',
  $: '$',
  '`': '`',
};

function doubleQuoted(text: string, from: number): Quoted | undefined {
  const parts: string[] = [];
  let run = from;
  for (let j = from; j < text.length; j++) {
    const c = text[j];
    if (c === '"') {
      parts.push(crlf(text.slice(run, j)));
      return { value: parts.join(''), end: j + 1 };
    }
    if (c === '\\' && j + 1 < text.length) {
      const next = text[j + 1] as string;
      parts.push(crlf(text.slice(run, j)), ESCAPES[next] ?? `\\${next}`);
      j++;
      run = j + 1;
    }
  }
  return undefined;
}

/**
 * A file written on Windows: its line breaks inside a quoted value are line feeds, as on every
 * other line (an escaped `\r` stays: it is what the value says).
 */
function crlf(value: string): string {
  return value.replace(/\r\n/g, '\n');
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * A variable as a dotenv line `parseDotenv` reads back to the same bytes: always double-quoted,
 * with `\`, `"`, `$`, `` ` ``, line feeds and carriage returns escaped (so the file also stays one
 * line per variable, and a shell sourcing it expands nothing).
 */
export function formatDotenvLine(key: string, value: string): string {
  const escaped = value.replace(/[\\"$`\n\r]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\${c}`));
  return `${key}="${escaped}"`;
}

/** A whole dotenv text of `vars`, keys sorted, one line each. */
export function formatDotenv(vars: Record<string, string>): string {
  return Object.keys(vars)
    .sort()
    .map((key) => `${formatDotenvLine(key, vars[key] as string)}\n`)
    .join('');
}
