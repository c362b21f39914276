/**
 * `.longshore/` holds secret material: the sealing passphrase (`secret`, `env.sh`), the simulated
 * cluster with its Secrets (`cluster.json` and its journal), Redis's data (job payloads) and the
 * kubeconfig. It is kept owner-only: the directory 0700 and everything in it without group or
 * other bits, including what an older version left wider.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Creates the state directory (0700) and takes group/other bits off everything already in it. */
export function prepareStateDir(dir: string): void {
  // Every file this process and its children (redis-server) create from now on is owner-only.
  process.umask(0o077);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tighten(dir);
}

function tighten(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if ((stat.mode & 0o077) !== 0) chmodSync(path, stat.mode & 0o700);
  if (stat.isDirectory()) for (const entry of readdirSync(path)) tighten(join(path, entry));
}
