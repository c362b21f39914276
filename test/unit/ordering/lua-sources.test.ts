/**
 * The ordering scripts' sources, without Redis: every `.lua` file is registered, has a header
 * that matches what the script reads, and uses no name it does not declare; includes take all
 * they need as parameters (they read no host local, nor KEYS or ARGV). Also the loader's include
 * rules and the name lint itself (so a check that finds nothing is known to be able to find).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { headerOf, loadLuaScript } from '../../../src/jobs/ordering/lua-loader.ts';
import { LUA_DIR, ORDERING_SCRIPTS, orderingScripts } from '../../../src/jobs/ordering/scripts.ts';
import { freeNames, luaTokens, REDIS_LUA_GLOBALS } from '../../helpers/lua-names.ts';

const INCLUDES_DIR = join(LUA_DIR, 'includes');
const includeFiles = readdirSync(INCLUDES_DIR).filter((f) => f.endsWith('.lua'));
const INCLUDE_GLOBALS = new Set([...REDIS_LUA_GLOBALS].filter((g) => g !== 'KEYS' && g !== 'ARGV'));

/** `ARGV[n]` literals a source reads, and the first index it unpacks (`unpack(ARGV, n)`). */
function argvRead(source: string): Set<number> {
  const code = luaTokens(source)
    .map((t) => t.text)
    .join(' ');
  const read = new Set<number>();
  for (const m of code.matchAll(/ARGV \[ (\d+) \]/g)) read.add(Number(m[1]));
  for (const m of code.matchAll(/unpack \( ARGV , (\d+) \)/g)) read.add(Number(m[1]));
  return read;
}

/** `ARGV[n]` lines of a header (`ARGV[9...]` declares 9 and on). */
function argvDeclared(header: string): Set<number> {
  return new Set([...header.matchAll(/^\s*ARGV\[(\d+)(?:\.\.\.)?\]/gm)].map((m) => Number(m[1])));
}

describe('ordering Lua sources', () => {
  it('registers every script file of the lua directory, and only those', () => {
    const files = readdirSync(LUA_DIR)
      .filter((f) => f.endsWith('.lua'))
      .map((f) => f.replace(/\.lua$/, ''));
    expect(files.sort()).toEqual([...ORDERING_SCRIPTS].sort());
  });

  it.each(ORDERING_SCRIPTS)('%s has a header with its keys, arguments and reply', (name) => {
    const own = readFileSync(join(LUA_DIR, `${name}.lua`), 'utf8');
    const header = headerOf(own);
    expect(header).toMatch(new RegExp(`^\\s*${name}: `));
    expect(header).toMatch(/^\s*Input:$/m);
    expect(header).toMatch(/^\s*Output/m);
    // The lane store passes one key to every script (the pending set or the job hash).
    expect(orderingScripts()[name].numberOfKeys).toBe(1);
    // Every argument the script reads is documented, and every documented one is read (finish's
    // ARGV[4] is documented as unused and kept for the calling convention).
    const body = own.slice(own.indexOf(']]'));
    const declared = argvDeclared(header);
    const read = argvRead(body);
    expect([...read].filter((n) => !declared.has(n))).toEqual([]);
    const unused = [...declared].filter((n) => !read.has(n));
    expect(unused).toEqual(name === 'finish' ? [4] : []);
  });

  it.each(ORDERING_SCRIPTS)('%s, assembled, uses only its own locals and Redis globals', (name) => {
    expect(freeNames(orderingScripts()[name].lua)).toEqual([]);
  });

  it.each(includeFiles)(
    'include %s takes what it needs as parameters (no host locals, KEYS or ARGV)',
    (file) => {
      // Assembled alone, with only the includes it names itself.
      const { lua } = loadLuaScript(join(INCLUDES_DIR, file));
      expect(freeNames(lua, INCLUDE_GLOBALS)).toEqual([]);
    },
  );

  it('assembles each script from its includes once, in dependency order', () => {
    const acquire = orderingScripts().acquire;
    const parts = acquire.files.map((f) => f.slice(LUA_DIR.length));
    expect(parts).toEqual([
      'includes/keys.lua',
      'includes/clean-head.lua',
      'includes/restates.lua',
      'includes/superseded-by.lua',
      'includes/record-attempt.lua',
      // acquire's turn check, shared with acquire-many (the coalesced form).
      'includes/acquire-one.lua',
      'acquire.lua',
    ]);
    expect(acquire.lua.match(/local function cleanHead\(/g)).toHaveLength(1);
    expect(acquire.lua).not.toMatch(/^---\s*@include/m);
  });
});

describe('the Lua loader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lua-loader-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => writeFileSync(join(dir, `${name}.lua`), text);

  it('inlines a file included twice (directly and through another include) once', () => {
    write('a', 'local function a() return 1 end');
    write('b', '--- @include "a"\nlocal function b() return a() end');
    write('main', '--[[\n  KEYS[1] one\n  KEYS[2] two\n]]\n--- @include "a"\n--- @include "b"\nreturn b()');
    const script = loadLuaScript(join(dir, 'main.lua'));
    expect(script.lua.match(/local function a\(/g)).toHaveLength(1);
    expect(script.lua.indexOf('local function a(')).toBeLessThan(script.lua.indexOf('local function b('));
    expect(script.numberOfKeys).toBe(2);
    expect(freeNames(script.lua)).toEqual([]);
  });

  it('refuses an include cycle and names a missing include', () => {
    write('x', '--- @include "y"');
    write('y', '--- @include "x"');
    expect(() => loadLuaScript(join(dir, 'x.lua'))).toThrow(/Lua include cycle: x.lua -> y.lua -> x.lua/);
    write('self', '--- @include "self"');
    expect(() => loadLuaScript(join(dir, 'self.lua'))).toThrow(/Lua include cycle/);
    write('lost', '--- @include "nowhere"');
    expect(() => loadLuaScript(join(dir, 'lost.lua'))).toThrow(
      /cannot read Lua file .*nowhere\.lua \(included by .*lost\.lua\)/,
    );
  });
});

describe('the Lua name lint', () => {
  const names = (source: string) => freeNames(source).map((f) => `${f.name}@${f.line}`);

  it('accepts locals, parameters, loop variables, fields and table keys', () => {
    const source = `
local a, b = 1, 2
local function f(p, ...) return p + a end
for i = 1, 3 do a = a + i end
for k, v in pairs({x = 1, ['y'] = 2}) do b = b .. k .. v end
local t = {field = a, other = f(b)}
while t.field do t.field = nil end
if a then local c = 1 elseif b then local c = 2 else local c = 3 end
local s = 'a string with -- no comment' .. [[a long one with x]] -- a comment with y
--[==[ a long comment with z ]==]
return redis.call('GET', KEYS[1]), t:other(), cjson.encode(t), function(q) return q end
`;
    expect(names(source)).toEqual([]);
  });

  it('finds undeclared reads and writes, and locals used outside their block', () => {
    const source = `
local a = missing
for i = 1, 3 do local inner = i end
if a then local c = 1 end
global = inner
function g() return i end
return c
`;
    expect(names(source)).toEqual(['missing@2', 'global@5', 'inner@5', 'g@6', 'i@6', 'c@7']);
  });

  it("finds what the old string fragments relied on: the host script's locals", () => {
    // The clean-up loop as it was before the scripts became files: it read its host's locals.
    const fragment = `
local head = false
for i = 1, 200 do
  head = redis.call('ZRANGE', pending, 0, 0)[1]
  if not head or head == jobId then break end
end
`;
    expect(names(fragment)).toEqual(['pending@4', 'jobId@5']);
  });
});
