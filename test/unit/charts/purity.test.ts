/**
 * Charts stay self-contained: they may import zod, node:crypto, each other and the shared rules
 * (rules/, which itself imports no project code: test/unit/rules/purity.test.ts), nothing else.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHARTS = fileURLToPath(new URL('../../../charts/', import.meta.url));
const RULES = fileURLToPath(new URL('../../../rules/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const within = (dir: string, path: string) => !relative(dir, path).startsWith('..');

describe('charts/', () => {
  it('imports only zod, node:crypto, other chart files and rules/', () => {
    const offending: string[] = [];
    for (const file of sources(CHARTS)) {
      const text = readFileSync(file, 'utf8');
      for (const [, specifier] of text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)) {
        if (specifier === 'zod' || specifier === 'node:crypto') continue;
        const target = resolve(file, '..', specifier!);
        const inside = specifier!.startsWith('.') && (within(CHARTS, target) || within(RULES, target));
        if (!inside) offending.push(`${relative(CHARTS, file)} → ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
