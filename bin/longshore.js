#!/usr/bin/env -S node --
// Starts the CLI from compiled JavaScript: a checkout runs the esbuild bundle under dist/cli/
// (bin/build-cli.js), rebuilt here first when a source file changed since it was built (a few ms
// to check), so it is never stale and never needs a manual build step. A call that finds another
// process rebuilding, or a build that fails (a syntax error mid-edit), runs the TypeScript sources
// through tsx instead, which reports the error properly. An installed package or image without
// src/ runs the bundle, or else tsc's dist/src/cli.js. LONGSHORE_CLI=tsx forces the sources.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import module from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = join(root, 'src', 'cli.ts');

/** A build lock older than this was left by a killed build. */
const STALE_LOCK_MS = 120_000;

async function viaTsx() {
  const { register } = await import('tsx/esm/api');
  register();
  return source;
}

/** Rebuilds unless another process already is (that call runs through tsx meanwhile). */
async function rebuild(builder) {
  const lock = join(builder.OUT, '.lock');
  mkdirSync(builder.OUT, { recursive: true });
  try {
    mkdirSync(lock);
  } catch {
    let age = 0;
    try {
      age = Date.now() - statSync(lock).mtimeMs;
    } catch {
      // released meanwhile
    }
    if (age < STALE_LOCK_MS) return undefined;
    rmSync(lock, { recursive: true, force: true });
    return rebuild(builder);
  }
  try {
    return join(await builder.buildCli(), 'cli.js');
  } catch {
    return undefined;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function entry() {
  if (!existsSync(source)) {
    try {
      const { dir } = JSON.parse(readFileSync(join(root, 'dist', 'cli', 'current.json'), 'utf8'));
      return join(root, 'dist', 'cli', dir, 'cli.js');
    } catch {
      return join(root, 'dist', 'src', 'cli.js');
    }
  }
  if (process.env.LONGSHORE_CLI === 'tsx') return viaTsx();
  // The freshness check alone: the builder (esbuild, node:crypto) loads only to rebuild.
  const fresh = (await import('./cli-build-state.js')).freshBuild();
  if (fresh) return join(fresh, 'cli.js');
  return (await rebuild(await import('./build-cli.js'))) ?? viaTsx();
}

const file = await entry();
// Node 22.1 and later keep the compiled code of the modules below on disk (in the OS temporary
// directory, or NODE_COMPILE_CACHE's), so a call after the first skips compiling the bundle
// (compiling is about a sixth of an enqueuing call's CPU profile on Node 20, which has no such
// cache: there this does nothing).
module.enableCompileCache?.();
// The prelude (src/cli-prelude.ts) starts work that runs beside loading the CLI: first, and alone.
const prelude = join(dirname(file), basename(file).replace(/^cli\./, 'cli-prelude.'));
if (existsSync(prelude)) await import(pathToFileURL(prelude).href);
const { main } = await import(pathToFileURL(file).href);
await main(process.argv);
