/**
 * Every request the simulator served: verb, resource, namespace, name, status, bytes and time.
 * Tests and benchmarks assert on it ("a no-op redeploy performs zero writes") and reset it.
 */

export type Verb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection'
  | 'other';

export interface RequestRecord {
  at: number;
  verb: Verb;
  method: string;
  path: string;
  /** `group/plural` (core group: `/plural`), or '' for non-resource paths. */
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  status: number;
  bytesIn: number;
  bytesOut: number;
  durationMs: number;
  userAgent?: string;
  contentType?: string;
}

export const WRITE_VERBS: Verb[] = ['create', 'update', 'patch', 'delete', 'deletecollection'];

export class RequestLog {
  private records: RequestRecord[] = [];
  private dropped = 0;

  constructor(private readonly capacity = 200_000) {}

  add(record: RequestRecord): void {
    this.records.push(record);
    if (this.records.length > this.capacity) {
      const excess = this.records.length - this.capacity;
      this.records.splice(0, excess);
      this.dropped += excess;
    }
  }

  /** Records so far, optionally filtered. */
  entries(
    filter: Partial<Pick<RequestRecord, 'verb' | 'resource' | 'namespace' | 'name'>> = {},
  ): RequestRecord[] {
    return this.records.filter(
      (r) =>
        (filter.verb === undefined || r.verb === filter.verb) &&
        (filter.resource === undefined || r.resource === filter.resource) &&
        (filter.namespace === undefined || r.namespace === filter.namespace) &&
        (filter.name === undefined || r.name === filter.name),
    );
  }

  /** Counts by verb, and reads/writes, with bytes. */
  summary(): {
    total: number;
    reads: number;
    writes: number;
    byVerb: Record<string, number>;
    bytesIn: number;
    bytesOut: number;
    dropped: number;
  } {
    const byVerb: Record<string, number> = {};
    let reads = 0;
    let writes = 0;
    let bytesIn = 0;
    let bytesOut = 0;
    for (const r of this.records) {
      byVerb[r.verb] = (byVerb[r.verb] ?? 0) + 1;
      if (WRITE_VERBS.includes(r.verb)) writes++;
      else if (r.verb !== 'other') reads++;
      bytesIn += r.bytesIn;
      bytesOut += r.bytesOut;
    }
    return { total: this.records.length, reads, writes, byVerb, bytesIn, bytesOut, dropped: this.dropped };
  }

  reset(): void {
    this.records = [];
    this.dropped = 0;
  }
}
