/**
 * rules/ is imported by charts/, src/ and infra/, so it imports none of them: only node builtins,
 * zod, cron-parser and other rule files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const RULES = fileURLToPath(new URL('../../../rules/', import.meta.url));
const PACKAGES = new Set(['zod', 'cron-parser']);

describe('rules/', () => {
  it('imports only node builtins, zod, cron-parser and other rule files', () => {
    const files = readdirSync(RULES).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    const offending: string[] = [];
    for (const name of files) {
      const text = readFileSync(join(RULES, name), 'utf8');
      for (const [, specifier] of text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)) {
        if (specifier!.startsWith('node:') || PACKAGES.has(specifier!)) continue;
        const inside =
          specifier!.startsWith('.') && !relative(RULES, resolve(RULES, specifier!)).startsWith('..');
        if (!inside) offending.push(`${name} → ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
