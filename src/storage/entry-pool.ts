/**
 * One shared copy of each distinct manifest entry among the cached indexes. Consecutive revisions
 * of a release mostly repeat each other's entries (a domain change rewrites one object of a dozen;
 * the rest keep their digest and their place in an earlier chunk), yet every index decodes its own
 * manifest: at 1,000 apps × 10 revisions that was ~70,000 entries, each with a ref, a 64-character
 * digest and its parts, three quarters of them equal to an entry of another revision.
 *
 * Entries are never changed after decoding (writers build new ones). They are not frozen: V8 gives
 * every frozen object a hidden class of its own, which cost more memory than sharing saved. Nor
 * keyed by a string built from their fields: the keys alone (concatenated strings) took ~12 MB.
 * Entries are found by their digest, which they already hold, and compared field by field.
 */
import type { StoredEntry } from './manifest.ts';

function sameEntry(a: StoredEntry, b: StoredEntry): boolean {
  if (a.type !== b.type || a.size !== b.size || a.stored !== b.stored) return false;
  if (a.ref?.apiVersion !== b.ref?.apiVersion || a.ref?.kind !== b.ref?.kind) return false;
  if (a.ref?.namespace !== b.ref?.namespace || a.ref?.name !== b.ref?.name) return false;
  if (a.parts.length !== b.parts.length) return false;
  return a.parts.every((p, i) => {
    const q = b.parts[i]!;
    return p.chunk === q.chunk && p.key === q.key && p.bytes === q.bytes;
  });
}

export class EntryPool {
  /** Entries by digest: usually one, more when one object is stored in several places. */
  private byDigest = new Map<string, StoredEntry[]>();
  private count = 0;

  /** The pool's copy of an entry equal to `entry` (`entry` itself when it is the first). */
  share(entry: StoredEntry): StoredEntry {
    const same = this.byDigest.get(entry.digest);
    const found = same?.find((e) => sameEntry(e, entry));
    if (found) return found;
    if (same) same.push(entry);
    else this.byDigest.set(entry.digest, [entry]);
    this.count++;
    return entry;
  }

  /** Keeps only the entries some of `manifests` still use (the indexes still cached). */
  retain(manifests: Iterable<readonly StoredEntry[]>): void {
    this.byDigest = new Map();
    this.count = 0;
    // Entries in use are the pool's own copies: sharing them again puts each back once.
    for (const entries of manifests) for (const e of entries) this.share(e);
  }

  get size(): number {
    return this.count;
  }
}
