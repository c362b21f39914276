/**
 * The per-lane ordering protocol, as Redis Lua scripts so every step is atomic. Each script is a
 * file in `./lua/` with a header listing its KEYS, ARGV and reply; shared code is in
 * `./lua/includes/` as `local function`s with explicit parameters (see lua-loader.ts).
 *
 *   reserve          (producer, before adding the BullMQ job) next position in the lane; the job id
 *                    is `{lane}.{seq}`, so the queue's acceptance order is the lane's order
 *   unreserve        (producer) undo a reservation whose add failed, or drop a cancelled job
 *   acquire          (worker, when a job is picked) `go` only for the head of the lane, `wait`
 *                    otherwise, `superseded` when a newer job carries its change; records the attempt
 *   acquire-many     (worker) acquire for the jobs picked in the same tick, in one call
 *   peek             (worker, after parking a job) the same clean-up, then "is this job the head now?"
 *   finish           (worker, when a job ended for good, before BullMQ records it) done marker,
 *                    attempt end, status projection, leave the lane, and the next head to promote
 *   start-unordered  (worker) the start of a job with no lane: done marker or a new attempt record
 *   end-attempt      (worker) close an attempt record, optionally with the done marker
 *
 * The scripts are read and assembled once per process, on first use. A compiled build reads them
 * from `dist/src/jobs/ordering/lua/`, where `npm run build` copies them, and the CLI bundle from
 * `dist/cli/<build>/lua/` (bin/build-cli.js). See docs/ordering.md.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type LuaScript, loadLuaScript } from './lua-loader.ts';

export const ORDERING_SCRIPTS = [
  'reserve',
  'unreserve',
  'acquire',
  'acquire-many',
  'peek',
  'finish',
  'start-unordered',
  'end-attempt',
  // Cross-shard holds (src/jobs/cross-shard-lanes.ts registers it).
  'hold',
] as const;

export type OrderingScript = (typeof ORDERING_SCRIPTS)[number];

/** Where the `.lua` files are: beside this module, in the source tree and in dist/ alike. */
export const LUA_DIR = fileURLToPath(new URL('./lua/', import.meta.url));

let loaded: Readonly<Record<OrderingScript, LuaScript>> | undefined;

/** Every ordering script, assembled with its includes (read from disk on the first call only). */
export function orderingScripts(): Readonly<Record<OrderingScript, LuaScript>> {
  if (!loaded) {
    if (!existsSync(LUA_DIR)) {
      throw new Error(
        `the ordering Lua scripts are missing: no ${LUA_DIR} (a compiled build must copy src/jobs/ordering/lua/ beside the compiled scripts.js, as npm run build does)`,
      );
    }
    const scripts = {} as Record<OrderingScript, LuaScript>;
    for (const name of ORDERING_SCRIPTS) scripts[name] = loadLuaScript(`${LUA_DIR}${name}.lua`);
    loaded = scripts;
  }
  return loaded;
}
