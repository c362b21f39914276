/**
 * Golden files: rendered objects as pretty JSON in test/fixtures/charts/golden. A mismatch fails the
 * test; `UPDATE_GOLDEN=1 npx vitest run test/unit/charts` rewrites the files (review the diff).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const GOLDEN_DIR = fileURLToPath(new URL('../../fixtures/charts/golden/', import.meta.url));

export function expectGolden(name: string, value: unknown): void {
  const file = join(GOLDEN_DIR, `${name}.json`);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN) {
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(file, text);
    return;
  }
  if (!existsSync(file)) throw new Error(`no golden file ${file}: run with UPDATE_GOLDEN=1 to write it`);
  expect(text).toBe(readFileSync(file, 'utf8'));
}
