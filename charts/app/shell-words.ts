/**
 * Splits a Procfile command into argv the way a POSIX shell would split words, without running a
 * shell: single quotes are literal, double quotes honour `\\ \" \$ \`` and line continuations,
 * a backslash outside quotes escapes the next character. Nothing is expanded (`$PORT` stays as
 * written; Kubernetes expands `$(PORT)` in args), and operators such as `&&` are plain words.
 */

export class ShellWordsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShellWordsError';
  }
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
/** Characters a backslash escapes inside double quotes; before any other, the backslash stays. */
const DOUBLE_QUOTE_ESCAPES = new Set(['\\', '"', '$', '`']);

export function splitShellWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  // A word exists once any character of it (even an empty pair of quotes) has been read.
  let inWord = false;
  let i = 0;
  while (i < command.length) {
    const c = command[i]!;
    if (c === '\\' && command[i + 1] === '\n') {
      i += 2; // line continuation: joins, starts nothing
      continue;
    }
    if (WHITESPACE.has(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new ShellWordsError(`unbalanced single quote (opened at character ${i + 1})`);
      word += command.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      const [text, next] = readDoubleQuoted(command, i);
      word += text;
      i = next;
    } else if (c === '\\') {
      if (i + 1 >= command.length) throw new ShellWordsError('ends with a backslash that escapes nothing');
      word += command[i + 1];
      i += 2;
    } else {
      word += c;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The text of the double-quoted string opening at `start`, and the index after its closing quote. */
function readDoubleQuoted(command: string, start: number): [string, number] {
  let text = '';
  let i = start + 1;
  while (i < command.length) {
    const c = command[i]!;
    if (c === '"') return [text, i + 1];
    if (c === '\\' && i + 1 < command.length) {
      const next = command[i + 1]!;
      if (next === '\n') {
        i += 2;
        continue;
      }
      text += DOUBLE_QUOTE_ESCAPES.has(next) ? next : `\\${next}`;
      i += 2;
      continue;
    }
    text += c;
    i++;
  }
  throw new ShellWordsError(`unbalanced double quote (opened at character ${start + 1})`);
}
