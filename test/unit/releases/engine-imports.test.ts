/**
 * The engine's decisions load no Kubernetes client: engine.ts knows the cluster only as a
 * ReleaseCluster and history only as a ReleaseHistory, so its unit tests (engine-decisions) run on
 * in-memory parts without client-node's start-up cost. This walks the runtime imports (everything
 * but `import type` / `export type`, which TypeScript erases) from the engine and the in-memory
 * history, the way Node would load them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ENTRIES = ['src/releases/engine.ts', 'src/storage/memory-history.ts'];
const FORBIDDEN = ['@kubernetes/client-node', 'ioredis', 'bullmq'];

function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const [statement, specifier] of text.matchAll(
    /^(?:import|export)\b[^;]*?from\s+['"]([^'"]+)['"]/gms,
  )) {
    if (/^(?:import|export)\s+type\b/.test(statement)) continue;
    found.push(specifier!);
  }
  return found;
}

/** Every package a file reaches through runtime imports, with the chain that reaches it. */
function reachedPackages(entry: string): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const walk = (file: string, chain: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of runtimeImports(file)) {
      if (!specifier.startsWith('.')) {
        if (!packages.has(specifier)) packages.set(specifier, `${chain} → ${specifier}`);
        continue;
      }
      const target = resolve(dirname(file), specifier);
      if (existsSync(target)) walk(target, `${chain} → ${relative(ROOT, target)}`);
    }
  };
  walk(resolve(ROOT, entry), entry);
  return packages;
}

describe('the engine core', () => {
  it.each(ENTRIES)('%s loads no Kubernetes client, Redis or queue', (entry) => {
    const packages = reachedPackages(entry);
    expect(packages.size).toBeGreaterThan(0);
    const offending = FORBIDDEN.filter((name) => packages.has(name)).map((name) => packages.get(name));
    expect(offending).toEqual([]);
  });

  it('the walk does find client-node where it is loaded', () => {
    expect(reachedPackages('src/releases/kube-engine.ts').has('@kubernetes/client-node')).toBe(true);
  });
});
