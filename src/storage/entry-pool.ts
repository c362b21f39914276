/**
 * One shared, frozen copy of each distinct manifest entry among the cached indexes. Consecutive
 * revisions of a release mostly repeat each other's entries (a domain change rewrites one object
 * of a dozen; the rest keep their digest and their place in an earlier chunk), yet every index
 * decodes its own manifest: at 1,000 apps × 10 revisions that was ~70,000 entries, each with a ref,
 * a 64-character digest and its parts, most of them equal to an entry of the revision before.
 * Entries are never changed after decoding (writers build new ones), and freezing them makes a
 * change fail loudly instead of altering every revision that shares the entry.
 */
import type { StoredEntry } from './manifest.ts';

function keyOf(e: StoredEntry): string {
  const ref = e.ref ? `${e.ref.apiVersion}|${e.ref.kind}|${e.ref.namespace ?? ''}|${e.ref.name}` : '';
  const parts = e.parts.map((p) => `${p.chunk}|${p.key}|${p.bytes}`).join(';');
  return `${e.type}|${ref}|${e.digest}|${e.size}|${e.stored}|${parts}`;
}

function frozen(e: StoredEntry): StoredEntry {
  const parts = Object.freeze(e.parts.map((p) => Object.freeze({ ...p })));
  return Object.freeze({
    ...e,
    ...(e.ref ? { ref: Object.freeze({ ...e.ref }) } : {}),
    parts: parts as StoredEntry['parts'],
  });
}

export class EntryPool {
  private entries = new Map<string, StoredEntry>();

  /** The pool's copy of an entry equal to `entry` (added when it is the first). */
  share(entry: StoredEntry): StoredEntry {
    const key = keyOf(entry);
    let shared = this.entries.get(key);
    if (!shared) {
      shared = frozen(entry);
      this.entries.set(key, shared);
    }
    return shared;
  }

  /** Keeps only the entries some of `manifests` still use (the indexes still cached). */
  retain(manifests: Iterable<readonly StoredEntry[]>): void {
    const kept = new Map<string, StoredEntry>();
    for (const entries of manifests) for (const e of entries) kept.set(keyOf(e), e);
    this.entries = kept;
  }

  get size(): number {
    return this.entries.size;
  }
}
