/**
 * `npm run lint` step: no fixed sleeps and no polling loops of their own in test/. A test waits
 * with the helpers of test/helpers/wait.ts, which say what they wait for: `until(probe)` for
 * something to happen, `stays(probe, ms)` for something not to, `within(promise, ms)` for a
 * deadline, `holdFor(ms, why)` for a pause a fault scenario needs, `simulateWork(ms)` for a test
 * job's slow work. A sleep "long enough" is either too long (a slow suite) or, on a loaded
 * machine, too short (a flaky one).
 *
 * Looks at code only (comments and string contents are blanked first). Finds:
 * - a Promise built around setTimeout/setInterval (`new Promise((r) => setTimeout(r, 100))`);
 * - a local sleep/delay/pause/wait function;
 * - node:timers/promises, promisify(setTimeout), vitest's vi.waitFor/vi.waitUntil;
 * - a loop whose condition reads the clock (a polling loop of its own).
 *
 * Usage: node --import tsx scripts/check-test-waits.ts [dir…]   (default: test); exit 1 on findings.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** The one file allowed to hold timers for waiting. */
export const WAIT_HELPERS = 'test/helpers/wait.ts';

export interface Finding {
  line: number;
  column: number;
  what: string;
}

const USE_INSTEAD =
  'wait for a condition with until(probe, what), show that nothing happens with stays(probe, ms, what), ' +
  `or pause a fault scenario with holdFor(ms, why) — all in ${WAIT_HELPERS}`;

const RULES: { pattern: RegExp; what: string }[] = [
  {
    pattern: /\b(?:async\s+)?function\s*\*?\s*(?:sleep|delay|pause|wait|wait[A-Z]\w*Ms)\s*\(/g,
    what: 'a local sleep function',
  },
  {
    pattern:
      /\b(?:const|let|var)\s+(?:sleep|delay|pause|wait)\s*=\s*(?:async\s*)?(?:\(|function\b|[A-Za-z_$][\w$]*\s*=>)/g,
    what: 'a local sleep function',
  },
  { pattern: /\bpromisify\s*\(\s*setTimeout\b/g, what: 'promisify(setTimeout) (a sleep)' },
  {
    pattern: /\bvi\s*\.\s*(?:waitFor|waitUntil)\b/g,
    what: 'vi.waitFor/vi.waitUntil (a second polling helper)',
  },
  {
    pattern: /\b(?:while|for)\s*\([^)]*\b(?:Date\.now|performance\.now)\s*\(\s*\)/g,
    what: 'a polling loop of its own (its condition reads the clock)',
  },
];

const TIMERS_PROMISES = /\b(?:from|import|require)\s*\(?\s*(['"])(?:node:)?timers\/promises\1/g;

/** Bare waits in one file's source text. */
export function findBareWaits(source: string): Finding[] {
  const code = blankCommentsAndStrings(source);
  const findings: Finding[] = [];
  const at = (index: number, what: string) => {
    const before = code.slice(0, index);
    const line = before.split('\n').length;
    findings.push({ line, column: index - before.lastIndexOf('\n'), what });
  };
  for (const promise of code.matchAll(/\bnew\s+Promise\b/g)) {
    const open = code.indexOf('(', promise.index);
    if (open < 0) continue;
    const body = code.slice(open, matchingParen(code, open) + 1);
    if (/\bset(?:Timeout|Interval)\s*\(/.test(body))
      at(promise.index, 'a Promise around setTimeout (a fixed sleep)');
  }
  for (const rule of RULES) for (const m of code.matchAll(rule.pattern)) at(m.index, rule.what);
  // Module names are strings, blanked above: look for them in the source, where the keyword before
  // them is still code (not inside a comment or a string).
  for (const m of source.matchAll(TIMERS_PROMISES)) {
    if (code.startsWith(m[0].slice(0, 4), m.index)) at(m.index, 'a timers/promises import (a sleep)');
  }
  return findings.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** Every finding under `dirs` (paths relative to `root`), as `file:line:column: …` lines. */
export function checkTree(root: string, dirs: readonly string[]): string[] {
  const out: string[] = [];
  for (const dir of dirs) {
    for (const file of tsFiles(join(root, dir))) {
      const name = relative(root, file).split(sep).join('/');
      if (name === WAIT_HELPERS) continue;
      for (const f of findBareWaits(readFileSync(file, 'utf8'))) {
        out.push(`${name}:${f.line}:${f.column}: ${f.what}; ${USE_INSTEAD}`);
      }
    }
  }
  return out;
}

function tsFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...tsFiles(path));
    else if (/\.(?:c|m)?[jt]sx?$/.test(entry.name)) files.push(path);
  }
  return files.sort();
}

/** Index of the `)` closing the `(` at `open` (code already free of strings and comments). */
function matchingParen(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === '(') depth++;
    else if (code[i] === ')' && --depth === 0) return i;
  }
  return code.length - 1;
}

/**
 * The source with comments and the contents of string and template literals replaced by spaces
 * (newlines kept, so lines and columns still match). `${…}` inside templates counts as string too:
 * a sleep hidden there is not worth a real parser.
 */
function blankCommentsAndStrings(source: string): string {
  const out = source.split('');
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== '\n') out[i] = ' ';
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end < 0 ? source.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? source.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
    } else if (c === '/' && regexCanStart(source, i)) {
      // A regex literal (/\d+ms/): skip it whole, so a quote inside is not taken for a string.
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== '\n' && (inClass || source[j] !== '/')) {
        if (source[j] === '\\') j++;
        else if (source[j] === '[') inClass = true;
        else if (source[j] === ']') inClass = false;
        j++;
      }
      blank(i + 1, j);
      i = j + 1;
    } else i++;
  }
  return out.join('');
}

/** A `/` starts a regex (not a division) after an operator, an opening bracket or a keyword. */
function regexCanStart(source: string, slash: number): boolean {
  let k = slash - 1;
  while (k >= 0 && /\s/.test(source[k]!)) k--;
  if (k < 0) return true;
  if (/[(,=:[!&|?{};+\-*%<>~^]/.test(source[k]!)) return true;
  return /\b(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$/.test(
    source.slice(Math.max(0, k - 10), k + 1),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dirs = process.argv.slice(2);
  const findings = checkTree(process.cwd(), dirs.length > 0 ? dirs : ['test']);
  for (const line of findings) process.stderr.write(`${line}\n`);
  if (findings.length > 0) {
    process.stderr.write(`check-test-waits: ${findings.length} bare wait(s) in tests\n`);
    process.exit(1);
  }
}
