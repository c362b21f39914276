/**
 * An LRU of chunk contents by chunk name, bounded by bytes. Chunks are immutable and their names
 * content-addressed, so an entry can never be stale: nothing is ever invalidated, only evicted.
 * Chunks this process wrote go in at once, so reading back a revision it just stored costs no GET.
 */

export type ChunkData = ReadonlyMap<string, Uint8Array>;

export class ChunkCache {
  private readonly entries = new Map<string, { data: ChunkData; bytes: number }>();
  private total = 0;

  constructor(readonly maxBytes: number) {}

  get(name: string): ChunkData | undefined {
    const hit = this.entries.get(name);
    if (!hit) return undefined;
    // Map iteration order is insertion order: re-inserting marks it most recently used.
    this.entries.delete(name);
    this.entries.set(name, hit);
    return hit.data;
  }

  /** Whether the chunk is held, without marking it used. */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  set(name: string, data: ChunkData): void {
    let bytes = 0;
    for (const [key, value] of data) bytes += key.length + value.byteLength;
    this.delete(name);
    if (bytes > this.maxBytes) return;
    this.entries.set(name, { data, bytes });
    this.total += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
    }
  }

  delete(name: string): void {
    const hit = this.entries.get(name);
    if (!hit) return;
    this.entries.delete(name);
    this.total -= hit.bytes;
  }

  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }
}
