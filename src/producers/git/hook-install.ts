/**
 * Installs the receive hook that deploys pushes (`longshore git-hook install`). It is a
 * pre-receive hook, as Dokku's is: git ignores a post-receive hook's exit status, so only a hook
 * that runs before the refs move can make a push whose deploy failed exit non-zero. The hook
 * execs this CLI (by absolute path, with the node that installed it) as `git-hook receive`, so it
 * deploys with the same code, checks and messages as `longshore deploy`.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { InvalidInputError, RefusedError } from '../../core/errors.ts';

const run = promisify(execFile);

/** The hook's second line: how a hook longshore wrote is told from one it must not overwrite. */
export const HOOK_MARKER = '# longshore git hook';

export interface HookOptions {
  app: string;
  branch: string;
  imageTemplate: string;
  /** Written into the hook when given (then readable by its owner only): else the hook uses git's environment. */
  redisUrl?: string;
}

/** A word for sh, in single quotes (a quote inside as `'\''`). */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The hook's text. `node` and `cli` are absolute paths, as the hook runs in the repository. */
export function hookScript(options: HookOptions, node: string, cli: string): string {
  const lines = [
    '#!/bin/sh',
    `${HOOK_MARKER}: deploys pushes to ${options.branch} as the app ${options.app}.`,
    '# Written by `longshore git-hook install`; installing again rewrites it.',
  ];
  if (options.redisUrl) lines.push(`REDIS_URL=${shellQuote(options.redisUrl)}`, 'export REDIS_URL');
  const args = ['git-hook', 'receive', '--app', options.app, '--branch', options.branch];
  args.push('--image-template', options.imageTemplate);
  lines.push(`exec ${[node, cli, ...args].map(shellQuote).join(' ')}`, '');
  return lines.join('\n');
}

/** The hook's path in a bare repository (core.hooksPath respected); refuses anything else. */
export async function hookPath(repo: string): Promise<string> {
  const dir = resolve(repo);
  if (!existsSync(dir)) throw new InvalidInputError([{ path: 'REPO', message: `${repo} does not exist` }]);
  let bare: string;
  try {
    bare = (await run('git', ['rev-parse', '--is-bare-repository'], { cwd: dir })).stdout.trim();
  } catch {
    throw new InvalidInputError([{ path: 'REPO', message: `${repo} is not a git repository` }]);
  }
  if (bare !== 'true') {
    throw new InvalidInputError([
      {
        path: 'REPO',
        message: `${repo} is not a bare repository (create one with \`git init --bare\`; a push to a checked-out branch is refused by git)`,
      },
    ]);
  }
  const path = (
    await run('git', ['rev-parse', '--git-path', 'hooks/pre-receive'], { cwd: dir })
  ).stdout.trim();
  return isAbsolute(path) ? path : join(dir, path);
}

/** Refuses a branch name git itself would refuse. */
export async function checkBranch(branch: string): Promise<void> {
  try {
    await run('git', ['check-ref-format', '--branch', branch]);
  } catch {
    throw new InvalidInputError([{ path: '--branch', message: `"${branch}" is not a valid branch name` }]);
  }
}

/**
 * Writes the hook (to a temporary name, then renamed over the old one, so a push meanwhile runs
 * the old hook or the new one, never half of one). A pre-receive hook longshore did not write is
 * kept unless `force`.
 */
export function writeHook(path: string, script: string, options: { force: boolean; secret: boolean }): void {
  if (existsSync(path) && !options.force) {
    const existing = readFileSync(path, 'utf8');
    if (
      !existing
        .split('\n')
        .slice(0, 3)
        .some((line) => line.startsWith(HOOK_MARKER))
    ) {
      throw new RefusedError(
        `${path} is a pre-receive hook longshore did not write; move it away, or pass --force to replace it`,
      );
    }
  }
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.longshore-${process.pid}`;
  writeFileSync(tmp, script, { mode: options.secret ? 0o700 : 0o755 });
  chmodSync(tmp, options.secret ? 0o700 : 0o755);
  renameSync(tmp, path);
}
