/**
 * .dockerignore rules applied to a list of paths, as Docker applies them to the build context
 * (https://docs.docker.com/build/concepts/context/#dockerignore-files): each line a pattern
 * relative to the context root (Go's filepath.Match, plus `**` for any number of directories),
 * matching a path or any directory above it; `!` re-includes; the last matching line wins.
 * `*.log` therefore matches only at the root, as in Docker.
 */

interface Rule {
  include: boolean;
  pattern: RegExp;
}

function toRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      out += '.*';
      i++;
      if (pattern[i + 1] === '/') i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

export function parseDockerignore(text: string): Rule[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const include = line.startsWith('!');
      const body = (include ? line.slice(1) : line).replace(/^\/+/, '').replace(/\/+$/, '');
      return { include, pattern: toRegExp(body) };
    });
}

/** Whether the file at `path` (relative, `/`-separated) is left out of the build context. */
export function ignored(rules: readonly Rule[], path: string): boolean {
  const parts = path.split('/');
  const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let out = false;
  for (const rule of rules) if (candidates.some((c) => rule.pattern.test(c))) out = !rule.include;
  return out;
}
