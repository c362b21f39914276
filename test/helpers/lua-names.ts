/**
 * A lint for Redis Lua: the names a chunk reads or writes that it does not declare. Redis 7 stops a
 * script that touches an undeclared global, but only when that line runs; a renamed local on a
 * rarely taken path (the supersession walk) would fail in production first. This finds such names
 * in the source, statically.
 *
 * It is a scope walk over Lua 5.1 tokens, not a full parser: `local` names, `local function`,
 * function parameters and `for` variables are declared in the block that holds them; field names
 * (`a.b`, `a:b()`, `{ b = 1 }`) are not references. It errs towards accepting in one place: a
 * `local x = x` counts the right-hand `x` as the new local.
 */

/** Globals Redis gives a script (https://redis.io/docs/latest/develop/interact/programmability/lua-api/). */
export const REDIS_LUA_GLOBALS: ReadonlySet<string> = new Set([
  'redis',
  'cjson',
  'cmsgpack',
  'bit',
  'struct',
  'KEYS',
  'ARGV',
  'table',
  'string',
  'math',
  'tonumber',
  'tostring',
  'unpack',
  'pairs',
  'ipairs',
  'type',
  'next',
  'select',
  'error',
  'pcall',
  'assert',
]);

const KEYWORDS = new Set(
  'and break do else elseif end false for function if in local nil not or repeat return then true until while'.split(
    ' ',
  ),
);

interface Token {
  kind: 'name' | 'keyword' | 'op' | 'literal';
  text: string;
  line: number;
}

export function luaTokens(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  const longBracket = (at: number): number => {
    // At `[`: the level of a long bracket `[==[` starting here, or -1.
    const match = /^\[(=*)\[/.exec(source.slice(at, at + 64));
    return match ? match[1]!.length : -1;
  };
  const skipLong = (at: number, level: number): number => {
    const close = `]${'='.repeat(level)}]`;
    const end = source.indexOf(close, at);
    if (end < 0) throw new Error(`unclosed long bracket at line ${line}`);
    line += source.slice(at, end).split('\n').length - 1;
    return end + close.length;
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (source.startsWith('--', i)) {
      const level = source[i + 2] === '[' ? longBracket(i + 2) : -1;
      if (level >= 0) i = skipLong(i + 4 + level, level);
      else while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < source.length && source[j] !== c) {
        if (source[j] === '\\') j++;
        if (source[j] === '\n') throw new Error(`unfinished string at line ${line}`);
        j++;
      }
      tokens.push({ kind: 'literal', text: source.slice(i, j + 1), line });
      i = j + 1;
    } else if (c === '[' && longBracket(i) >= 0) {
      const level = longBracket(i);
      const start = line;
      const end = skipLong(i + 2 + level, level);
      tokens.push({ kind: 'literal', text: source.slice(i, end), line: start });
      i = end;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const match = /^(0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?)/.exec(source.slice(i))!;
      tokens.push({ kind: 'literal', text: match[0], line });
      i += match[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const text = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i))![0];
      tokens.push({ kind: KEYWORDS.has(text) ? 'keyword' : 'name', text, line });
      i += text.length;
    } else {
      const text = ['...', '..', '==', '~=', '<=', '>='].find((op) => source.startsWith(op, i)) ?? c;
      tokens.push({ kind: 'op', text, line });
      i += text.length;
    }
  }
  return tokens;
}

export interface FreeName {
  name: string;
  line: number;
}

/** Every use of a name that is neither declared in scope nor one of `globals`, in source order. */
export function freeNames(source: string, globals: ReadonlySet<string> = REDIS_LUA_GLOBALS): FreeName[] {
  const tokens = luaTokens(source);
  const scopes: Set<string>[] = [new Set()];
  const brackets: string[] = [];
  const free: FreeName[] = [];
  let forVariables: string[] | undefined;
  const declare = (name: string) => scopes.at(-1)!.add(name);
  const declared = (name: string) => scopes.some((scope) => scope.has(name));
  const open = (names: string[] = []) => scopes.push(new Set(names));
  const close = (at: Token) => {
    if (scopes.length === 1) throw new Error(`unbalanced '${at.text}' at line ${at.line}`);
    scopes.pop();
  };
  /** Declares a function's parameters in a new scope; `at` is the index of its `(`. Returns the index of `)`. */
  const parameters = (at: number, self: boolean): number => {
    const names = self ? ['self'] : [];
    let j = at + 1;
    for (; tokens[j] && tokens[j]!.text !== ')'; j++)
      if (tokens[j]!.kind === 'name') names.push(tokens[j]!.text);
    open(names);
    return j;
  };

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const previous = tokens[i - 1]?.text;
    if (t.kind === 'name') {
      const isField = previous === '.' || previous === ':';
      const isTableKey =
        brackets.at(-1) === '{' &&
        (previous === '{' || previous === ',' || previous === ';') &&
        tokens[i + 1]?.text === '=';
      if (!isField && !isTableKey && !declared(t.text) && !globals.has(t.text)) {
        free.push({ name: t.text, line: t.line });
      }
      continue;
    }
    switch (t.text) {
      case 'local':
        if (tokens[i + 1]?.text === 'function') {
          // `local function f(...)`: f is in scope in its own body (recursion).
          declare(tokens[i + 2]!.text);
          i = parameters(i + 3, false);
        } else {
          for (i++; tokens[i]?.kind === 'name'; i += 2) {
            declare(tokens[i]!.text);
            if (tokens[i + 1]?.text !== ',') break;
          }
        }
        break;
      case 'function': {
        // `function (…)` or `function a.b:c(…)`: the name path is a reference, handled as names.
        let j = i + 1;
        let self = false;
        while (tokens[j] && tokens[j]!.text !== '(') {
          if (tokens[j]!.text === ':') self = true;
          j++;
        }
        if (j === i + 1) i = parameters(j, false);
        else {
          // Check the function's name (a global function definition is a global write).
          const name = tokens[i + 1]!;
          if (!declared(name.text) && !globals.has(name.text))
            free.push({ name: name.text, line: name.line });
          i = parameters(j, self);
        }
        break;
      }
      case 'for': {
        forVariables = [];
        for (i++; tokens[i]?.kind === 'name'; i += 2) {
          forVariables.push(tokens[i]!.text);
          if (tokens[i + 1]?.text !== ',') break;
        }
        break;
      }
      case 'do':
        open(forVariables);
        forVariables = undefined;
        break;
      case 'then':
      case 'repeat':
        open();
        break;
      case 'elseif':
        close(t);
        break;
      case 'else':
        close(t);
        open();
        break;
      case 'end':
      case 'until':
        close(t);
        break;
      case '{':
      case '(':
      case '[':
        brackets.push(t.text);
        break;
      case '}':
      case ')':
      case ']':
        brackets.pop();
        break;
    }
  }
  if (scopes.length !== 1) throw new Error(`${scopes.length - 1} block(s) not closed`);
  return free;
}
