// The CLI's fast build: one esbuild bundle of src/cli.ts (with code splitting, so a command loads
// only the chunks it imports) under dist/cli/<id>/, and dist/cli/current.json naming it together
// with the size and mtime of every source file it was built from. bin/longshore.js checks those in
// a few milliseconds and rebuilds through this module when a source changed, so a checkout never
// runs stale code and nobody has to remember a build step. Plain JavaScript: the launcher imports
// it without tsx. See docs/cli-startup.md.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { CURRENT, fileStamp, OUT, ROOT } from './cli-build-state.js';

export { CURRENT, freshBuild, OUT, ROOT } from './cli-build-state.js';

/**
 * Loaded from node_modules rather than bundled: pino starts its transports (pino-pretty) as worker
 * threads by file name, protobufjs requires optional modules at run time, and client-node is big
 * (15 MB) and only the worker, kube-sim and the dev stack load it. fastify, its plugins and Bull
 * Board (`serve` only) find their files (Bull Board's UI, fastify's schemas) beside their own
 * modules.
 */
const EXTERNAL = [
  'pino',
  'pino-pretty',
  'thread-stream',
  'protobufjs',
  '@kubernetes/client-node',
  'fastify',
  '@fastify/*',
  '@bull-board/*',
];

/**
 * zod's messages in English only: its locale index pulls in every other language (340 kB of the
 * 850 kB zod adds to each call that validates), and nothing here ever selects one.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";\n',
      loader: 'js',
    }));
  },
};

/**
 * bullmq's ES module build (its package.json has no `exports`, so esbuild would take `main`, the
 * CommonJS build): tree-shaken to what the bundle uses instead of loaded whole.
 */
const BULLMQ_ESM = join(ROOT, 'node_modules', 'bullmq', 'dist', 'esm', 'index.js');

/**
 * bullmq without its PostgreSQL backend: its index re-exports the backend (about 290 kB, mostly
 * SQL), which longshore never uses and every call that enqueues would compile. Only that
 * re-export is dropped, so every other name bullmq exports stays importable.
 */
const bullmqWithoutPostgres = {
  name: 'bullmq-without-postgres',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]bullmq[\\/]dist[\\/]esm[\\/]index\.js$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8')
        .split('\n')
        .filter((line) => !/from ['"]\.\/postgres['"]/.test(line))
        .join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * bullmq's module graph, minus two start-up costs an enqueuing call pays for nothing: semver (its
 * ~600 regular expressions, built when loaded) is replaced by bundle-shims/semver-for-bullmq.js,
 * exactly what bullmq's Redis version check uses; cron-parser, which only bullmq's job schedulers
 * use (longshore has its own scheduler), runs on its first parse instead of with every Queue.
 * Both only for imports from bullmq, so nothing else's semver or cron-parser changes.
 */
const SEMVER_SHIM = join(ROOT, 'bin', 'bundle-shims', 'semver-for-bullmq.js');
const fromBullmq = (importer) => /[\\/]node_modules[\\/]bullmq[\\/]/.test(importer);
const bullmqLeanDependencies = {
  name: 'bullmq-lean-dependencies',
  setup(build) {
    build.onResolve({ filter: /^semver$/ }, (args) =>
      fromBullmq(args.importer) ? { path: SEMVER_SHIM } : undefined,
    );
    build.onResolve({ filter: /^cron-parser$/ }, (args) =>
      fromBullmq(args.importer) && args.kind === 'import-statement'
        ? { path: args.importer, namespace: 'lazy-cron-parser' }
        : undefined,
    );
    // A require() inside a function: esbuild bundles cron-parser as a CommonJS module, which
    // runs on the first call instead of when the bundle loads. resolveDir keeps bullmq's own copy.
    build.onLoad({ filter: /.*/, namespace: 'lazy-cron-parser' }, (args) => ({
      contents:
        "export const CronExpressionParser = { parse: (...args) => require('cron-parser').CronExpressionParser.parse(...args) };\n",
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/** Files the bundle depends on besides its imports: read beside the bundle at run time. */
const LUA_SOURCE = join(ROOT, 'src', 'jobs', 'ordering', 'lua');

/** Old builds are kept this long: a long-running worker may still load a lazy chunk from one. */
const KEEP_OLD_MS = 24 * 60 * 60 * 1000;

function luaFiles() {
  return readdirSync(LUA_SOURCE).map((name) => join(LUA_SOURCE, name));
}

/**
 * Builds into a private temporary directory, renames it into place and then points current.json
 * at it (write + rename): a process starting meanwhile sees either the old build or the new one,
 * never half of one, however many build at once. Returns the build's directory.
 */
export async function buildCli() {
  const { build } = await import('esbuild');
  const started = Date.now();
  mkdirSync(OUT, { recursive: true });
  const id = `${started.toString(36)}-${randomBytes(4).toString('hex')}`;
  const tmp = join(OUT, `.tmp-${id}`);
  try {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: { cli: 'src/cli.ts', 'cli-prelude': 'src/cli-prelude.ts' },
      outdir: tmp,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: EXTERNAL,
      metafile: true,
      plugins: [zodEnglishOnly, bullmqWithoutPostgres, bullmqLeanDependencies],
      // Smaller files compile faster (a CLI call spends a third of its time compiling). Names are
      // kept: errors are told apart by name (src/core/errors.ts, src/core/network-errors.ts).
      minify: true,
      keepNames: true,
      alias: { bullmq: BULLMQ_ESM },
      logLevel: 'silent',
      // Bundled CommonJS packages (ioredis, commander) call require(); ESM output has none.
      banner: {
        js: "import { createRequire as __longshoreRequire } from 'node:module'; const require = __longshoreRequire(import.meta.url);",
      },
    });
    // Every chunk sits at the top of the directory, so scripts.ts's `new URL('./lua/', import.meta.url)`
    // finds the ordering scripts here.
    cpSync(LUA_SOURCE, join(tmp, 'lua'), { recursive: true });
    const files = [
      ...Object.keys(result.metafile.inputs)
        .filter((input) => !input.includes('node_modules/'))
        .map((input) => join(ROOT, input)),
      ...luaFiles(),
      // Bundled packages change with the lockfile.
      join(ROOT, 'package-lock.json'),
      join(ROOT, 'package.json'),
      // How it is built: a change to this file's options or plugins rebuilds too.
      fileURLToPath(import.meta.url),
    ];
    const inputs = {};
    for (const file of files) {
      const stamp = fileStamp(file);
      if (!stamp) continue;
      // Changed while esbuild read it: record it as stale so the next call builds again.
      inputs[relative(ROOT, file)] = stamp[1] >= started ? [stamp[0], -1] : stamp;
    }
    renameSync(tmp, join(OUT, id));
    const pointer = join(OUT, `.current-${id}.json`);
    writeFileSync(pointer, `${JSON.stringify({ dir: id, builtAt: new Date().toISOString(), inputs })}\n`);
    renameSync(pointer, CURRENT);
    pruneOldBuilds(id);
    return join(OUT, id);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function pruneOldBuilds(keep) {
  for (const name of readdirSync(OUT)) {
    if (name === keep || name === 'current.json' || name === '.lock') continue;
    const path = join(OUT, name);
    const stamp = fileStamp(path);
    if (stamp && Date.now() - stamp[1] > KEEP_OLD_MS) rmSync(path, { recursive: true, force: true });
  }
}

// `node bin/build-cli.js` (npm run build, npm's prepare): build now and say where.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = await buildCli();
  process.stdout.write(`built the CLI into ${relative(process.cwd(), dir)}\n`);
}
