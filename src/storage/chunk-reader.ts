/**
 * Reading entries back: fetch the chunks a manifest names (through the LRU), join each entry's
 * parts, inflate, and check the result against the entry's digest. A missing chunk, a missing key
 * or bytes that do not match their digest make the revision unreadable (UnreadableRevisionError);
 * transient API errors stay transient, so the job retries instead of declaring data lost.
 * Chunks found missing or corrupt are remembered, so new revisions write those entries afresh
 * instead of deduplicating into them.
 */
import type { ChunkCache, ChunkData } from './chunk-cache.ts';
import { gunzip } from './compression.ts';
import { sha256Hex } from './digest.ts';
import type { StoredEntry } from './manifest.ts';
import type { SecretApi } from './secret-api.ts';
import { fromBase64Data } from './secret-builders.ts';

/** Why an entry could not be read, as a value: the caller builds the error naming the revision. */
export class EntryProblem extends Error {
  constructor(
    message: string,
    readonly chunks: string[] = [],
  ) {
    super(message);
  }
}

const FETCH_CONCURRENCY = 4;

export class ChunkReader {
  /** Chunks found missing or corrupt: never deduplicated into. */
  readonly bad = new Set<string>();

  constructor(
    private readonly api: SecretApi,
    readonly cache: ChunkCache,
  ) {}

  /** Fetches (or finds cached) every chunk the entries use; missing ones map to undefined. */
  private async fetchAll(names: string[]): Promise<Map<string, ChunkData | undefined>> {
    const out = new Map<string, ChunkData | undefined>();
    const queue = [...names];
    const worker = async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        const cached = this.cache.get(name);
        if (cached) {
          out.set(name, cached);
          continue;
        }
        const secret = await this.api.get(name);
        if (!secret) {
          out.set(name, undefined);
          continue;
        }
        const data = fromBase64Data(secret.data);
        this.cache.set(name, data);
        out.set(name, data);
      }
    };
    await Promise.all(Array.from({ length: Math.min(FETCH_CONCURRENCY, names.length) }, worker));
    return out;
  }

  /** The canonical JSON bytes of each entry, in order; throws EntryProblem on the first bad one. */
  async read(entries: StoredEntry[]): Promise<Uint8Array[]> {
    const names = [...new Set(entries.flatMap((e) => e.parts.map((p) => p.chunk)))];
    const chunks = await this.fetchAll(names);
    return entries.map((entry) => this.decodeEntry(entry, chunks));
  }

  /**
   * One entry's canonical JSON bytes from chunk contents at hand, checked against its digest;
   * throws EntryProblem (and remembers the chunks as bad) when they are missing or do not match.
   */
  decodeEntry(entry: StoredEntry, chunks: ReadonlyMap<string, ChunkData | undefined>): Uint8Array {
    const pieces: Uint8Array[] = [];
    for (const part of entry.parts) {
      const data = chunks.get(part.chunk);
      if (!data) throw this.problem(`chunk ${part.chunk} is missing`, part.chunk);
      const bytes = data.get(part.key);
      if (!bytes) throw this.problem(`chunk ${part.chunk} has no key ${part.key}`, part.chunk);
      if (bytes.byteLength !== part.bytes) {
        throw this.problem(
          `chunk ${part.chunk} key ${part.key} holds ${bytes.byteLength} bytes, expected ${part.bytes}`,
          part.chunk,
        );
      }
      pieces.push(bytes);
    }
    const gz = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    let bytes: Uint8Array;
    try {
      bytes = gunzip(gz, entry.size);
    } catch (err) {
      throw this.problem(
        `entry ${describe(entry)} does not inflate: ${(err as Error).message}`,
        chunksOf(entry),
      );
    }
    if (sha256Hex(bytes) !== entry.digest) {
      throw this.problem(`entry ${describe(entry)} does not match its digest`, chunksOf(entry));
    }
    return bytes;
  }

  private problem(message: string, chunk: string | string[]): EntryProblem {
    const chunks = Array.isArray(chunk) ? chunk : [chunk];
    for (const name of chunks) {
      this.bad.add(name);
      this.cache.delete(name);
    }
    return new EntryProblem(message, chunks);
  }
}

function chunksOf(entry: StoredEntry): string[] {
  return [...new Set(entry.parts.map((p) => p.chunk))];
}

function describe(entry: StoredEntry): string {
  if (!entry.ref) return `chart/values (${entry.digest.slice(0, 12)})`;
  const { apiVersion, kind, namespace, name } = entry.ref;
  return `${apiVersion} ${kind} ${namespace ? `${namespace}/` : ''}${name}`;
}
