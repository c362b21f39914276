// Where the CLI's build lives and whether it is fresh: what bin/longshore.js checks on every call,
// apart from the builder (bin/build-cli.js, with esbuild and node:crypto), which it loads only to
// rebuild. Plain JavaScript, node:fs and node:path only. See docs/cli-startup.md.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const OUT = join(ROOT, 'dist', 'cli');
export const CURRENT = join(OUT, 'current.json');

/** `[size, mtimeMs]` of a file, or null when it is gone. */
export function fileStamp(path) {
  // No exception for a missing file: this runs for every input on every call.
  const s = statSync(path, { throwIfNoEntry: false });
  return s ? [s.size, s.mtimeMs] : null;
}

/** Whether current.json's inputs are all unchanged; the build's directory when they are. */
export function freshBuild() {
  let current;
  try {
    current = JSON.parse(readFileSync(CURRENT, 'utf8'));
  } catch {
    return undefined;
  }
  // ROOT ends with a separator and the inputs are relative to it: plain concatenation, as this
  // loop runs about 500 times on every call, before anything is compiled.
  for (const file in current.inputs) {
    const stamp = current.inputs[file];
    const now = statSync(ROOT + file, { throwIfNoEntry: false });
    if (!now || now.size !== stamp[0] || now.mtimeMs !== stamp[1]) return undefined;
  }
  return join(OUT, current.dir);
}
