/**
 * The build context `docker build .` would send: the repository's files (tracked, and new ones git
 * does not ignore, so a test sees uncommitted work too) minus .dockerignore's rules, copied to a
 * clean directory that has no node_modules, no dist and no .git.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ignored, parseDockerignore } from './dockerignore.ts';

export function copyBuildContext(repo: string, to: string): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  const rules = parseDockerignore(readFileSync(join(repo, '.dockerignore'), 'utf8'));
  // A tracked file deleted in the working tree is not in the context either.
  const files = [...new Set(listed)].filter((f) => !ignored(rules, f) && existsSync(join(repo, f)));
  for (const file of files) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(repo, file), join(to, file));
  }
  return files;
}
