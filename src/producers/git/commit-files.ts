/**
 * Files of a pushed commit, read from the repository with git itself (the hook runs inside the
 * bare repository, and before a pre-receive hook accepts the push its objects exist only in
 * git's quarantine, which git's own commands see). Bounded: a file over `maxBytes` is refused
 * before its content is read.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { InvalidInputError } from '../../core/errors.ts';
import { formatBytes } from '../sources/read-file.ts';

const run = promisify(execFile);

/** `path` at `sha`, or undefined when the commit has no such file. */
export async function readCommitFile(
  gitDir: string,
  sha: string,
  path: string,
  maxBytes: number,
): Promise<string | undefined> {
  // `mode type object size<TAB>path`, or nothing when that commit has no such path.
  const { stdout: entry } = await run('git', ['ls-tree', '-l', '--full-tree', sha, '--', path], {
    cwd: gitDir,
  });
  const label = `${path} at ${sha.slice(0, 7)}`;
  const match = /^\d+ (\w+) [0-9a-f]+\s+(\d+|-)\t/.exec(entry);
  if (!match) return undefined;
  if (match[1] !== 'blob') {
    throw new InvalidInputError([{ path, message: `is a ${match[1]} in the commit, not a file` }], label);
  }
  const size = Number(match[2]);
  if (size > maxBytes) {
    throw new InvalidInputError(
      [{ path, message: `is ${formatBytes(size)}; at most ${formatBytes(maxBytes)} is read` }],
      label,
    );
  }
  const { stdout } = await run('git', ['cat-file', 'blob', `${sha}:${path}`], {
    cwd: gitDir,
    encoding: 'utf8',
    maxBuffer: maxBytes + 1,
  });
  return stdout;
}
