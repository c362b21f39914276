import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/core/errors.ts';
import { formatDotenv, formatDotenvLine, parseDotenv } from '../../src/producers/sources/dotenv.ts';

const parse = (text: string) => parseDotenv(text, '.env');

function issuesOf(text: string): string[] {
  try {
    parse(text);
  } catch (err) {
    if (err instanceof InvalidInputError) return err.issues.map((i) => `${i.path}: ${i.message}`);
    throw err;
  }
  throw new Error('parsed without an issue');
}

describe('dotenv parsing', () => {
  it('reads KEY=VALUE, export, comments, blank lines and CRLF', () => {
    expect(
      parse(
        '# a comment\n\nA=1\nexport B=two\n  C = spaced out  \r\nD=\nE=has=equals\n   # indented comment\nF=x # trailing comment\nG=no#comment\n',
      ),
    ).toEqual({ A: '1', B: 'two', C: 'spaced out', D: '', E: 'has=equals', F: 'x', G: 'no#comment' });
  });

  it('keeps single-quoted values literal, across lines', () => {
    expect(parse("A='a \\n $HOME \"q\" # not a comment'\nB='line one\nline two'\nC=''\n")).toEqual({
      A: 'a \\n $HOME "q" # not a comment',
      B: 'line one\nline two',
      C: '',
    });
  });

  it('reads escapes and multi-line values in double quotes', () => {
    expect(
      parse(
        'A="one\\ntwo\\tthree \\"q\\" back\\\\slash \\$HOME \\`x\\` \\q"\nB="first\nsecond\n"  # after\nC=""\nD="ünïcødé ✓ 🚀"\n',
      ),
    ).toEqual({
      A: 'one\ntwo\tthree "q" back\\slash $HOME `x` \\q',
      B: 'first\nsecond\n',
      C: '',
      D: 'ünïcødé ✓ 🚀',
    });
  });

  it('a later line wins over an earlier one of the same key', () => {
    expect(parse('A=1\nA=2\n')).toEqual({ A: '2' });
  });

  it('names file:line and what to do for each bad line, counting the lines of multi-line values', () => {
    expect(issuesOf('A="x\ny"\nnot an assignment\n1BAD=x\nOK=1\nB="v" trailing\n')).toEqual([
      '.env:3: expected KEY=VALUE, found "not an assignment" (comments start with #)',
      '.env:4: "1BAD" is not a variable name: it must be letters, digits and "_", not starting with a digit',
      '.env:6: unexpected "trailing" after the closing " of B; quote the whole value',
    ]);
    expect(issuesOf('A=1\nB="never closed\nC=2\n')).toEqual([
      '.env:2: the value of B opens a " quote that is never closed; close it with " (write \\" for a quote inside)',
    ]);
    expect(issuesOf("A='open\n")[0]).toMatch(/^\.env:1: the value of A opens a ' quote/);
    expect(issuesOf('MY-KEY=1\n')[0]).toMatch(/^\.env:1: "MY-KEY" is not a variable name/);
    expect(() => parse('=x')).toThrow(/invalid dotenv input \.env: \.env:1/);
  });

  it('formats values so that parsing gives the same bytes back', () => {
    const vars = {
      EMPTY: '',
      NEWLINES: 'a\nb\r\nc\n',
      QUOTES: `"double" 'single' \`back\``,
      DOLLAR: '$HOME $(id) $$ \\$',
      BACKSLASH: 'C:\\path\\n\\',
      UNICODE: 'ünïcødé ✓ 🚀 日本語',
      SPACES: '  padded  ',
      HASH: 'value # not a comment',
      TAB: 'a\tb',
    };
    const text = formatDotenv(vars);
    expect(text.split('\n').length).toBe(Object.keys(vars).length + 1);
    expect(parse(text)).toEqual(vars);
    expect(formatDotenvLine('A', 'x"$\n')).toBe('A="x\\"\\$\\n"');
  });

  it('parses a large file in one pass (1,000 quoted multi-line values)', () => {
    const vars = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [`VAR_${i}`, `line\n${'x'.repeat(900)}\n"${i}"`]),
    );
    expect(parse(formatDotenv(vars))).toEqual(vars);
    const raw = Object.entries(vars)
      .map(([k, v]) => `${k}='${v.replaceAll('"', '')}'`)
      .join('\n');
    expect(Object.keys(parse(raw))).toHaveLength(1000);
  });
});
