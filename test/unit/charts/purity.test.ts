/** Charts stay self-contained: they may import zod, node:crypto and each other, nothing else. */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHARTS = fileURLToPath(new URL('../../../charts/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('charts/', () => {
  it('imports only zod, node:crypto and other chart files', () => {
    const offending: string[] = [];
    for (const file of sources(CHARTS)) {
      const text = readFileSync(file, 'utf8');
      for (const [, specifier] of text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)) {
        if (specifier === 'zod' || specifier === 'node:crypto') continue;
        const inside =
          specifier!.startsWith('.') && !relative(CHARTS, resolve(file, '..', specifier!)).startsWith('..');
        if (!inside) offending.push(`${relative(CHARTS, file)} → ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
