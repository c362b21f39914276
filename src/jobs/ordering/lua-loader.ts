/**
 * Assembles a Redis Lua script from its `.lua` file and the include files it names, the way
 * BullMQ's `src/commands` do: a line
 *
 *   --- @include "includes/clean-head"
 *
 * is replaced by that file (`.lua` implied, the path relative to the including file), whose own
 * includes come first. Each file goes into a script once, however many files include it, so an
 * include can name what it needs without the host knowing. Includes define `local function`s that
 * take everything as parameters, so a script's locals are its own: see docs/ordering.md.
 *
 * A script starts with a `--[[ ... ]]` header that says what it does and lists its KEYS and ARGV;
 * the number of keys Redis needs for the call (EVALSHA's numkeys) is read from the `KEYS[n]` lines
 * there, so the header cannot drift from the calling convention unnoticed.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

export interface LuaScript {
  /** The script's file name without `.lua`. */
  name: string;
  /** The assembled source, includes inlined. */
  lua: string;
  /** How many of the script's arguments are keys (the highest `KEYS[n]` its header lists). */
  numberOfKeys: number;
  /** The files it was assembled from, includes first, the script itself last. */
  files: string[];
}

const INCLUDE = /^---\s*@include\s+"([^"]+)"\s*$/;

/** The leading `--[[ ... ]]` block of a Lua file, or '' when it has none. */
export function headerOf(source: string): string {
  const match = /^\s*--\[\[([\s\S]*?)\]\]/.exec(source);
  return match ? match[1]! : '';
}

/** The highest n of the `KEYS[n]` a header declares (0 for none). */
export function keysDeclared(header: string): number {
  let most = 0;
  for (const match of header.matchAll(/^\s*KEYS\[(\d+)\]/gm)) most = Math.max(most, Number(match[1]));
  return most;
}

/** Reads `file` (a path to a `.lua` file) and inlines its includes. */
export function loadLuaScript(file: string): LuaScript {
  const included = new Set<string>();
  const files: string[] = [];
  const lua = expand(file, included, [], files);
  // Includes are inlined after the script's header, so the assembled script starts with it.
  return { name: basename(file, '.lua'), lua, numberOfKeys: keysDeclared(headerOf(lua)), files };
}

function expand(file: string, included: Set<string>, including: string[], files: string[]): string {
  const chain = [...including, file];
  if (including.includes(file)) {
    const root = dirname(chain[0]!);
    throw new Error(`Lua include cycle: ${chain.map((f) => relative(root, f)).join(' -> ')}`);
  }
  included.add(file);
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    const from = including.at(-1);
    const via = from ? ` (included by ${from})` : '';
    throw new Error(`cannot read Lua file ${file}${via}: ${(error as Error).message}`);
  }
  const lines = source.split('\n').map((line) => {
    const include = INCLUDE.exec(line);
    if (!include) return line;
    const target = join(dirname(file), `${include[1]}.lua`);
    if (included.has(target) && !chain.includes(target)) return `-- (${include[1]}: included above)`;
    return expand(target, included, chain, files);
  });
  files.push(file);
  return lines.join('\n');
}
