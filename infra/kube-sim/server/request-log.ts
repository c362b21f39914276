/**
 * Every request the simulator served: verb, resource, namespace, name, status, bytes and time.
 * Tests and benchmarks assert on it ("a no-op redeploy performs zero writes") and reset it. A
 * request is recorded when its connection closes; until then it is in flight (`inFlight`), which
 * lets a test act while a slow request (a latency fault) is being served.
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
  /** The authenticated user's name (`system:serviceaccount:NS:NAME`, `kube-sim-admin`…); unset on a 401. */
  user?: string;
  contentType?: string;
  /** The request asked for `dryRun=All`. */
  dryRun?: boolean;
}

/** A request being served: what its record will say, less the answer. */
export type InFlightRequest = Pick<
  RequestRecord,
  'at' | 'verb' | 'method' | 'path' | 'resource' | 'subresource' | 'namespace' | 'name'
>;

type RequestFilter = Partial<Pick<RequestRecord, 'verb' | 'resource' | 'namespace' | 'name'>>;

function matches(r: InFlightRequest, filter: RequestFilter): boolean {
  return (
    (filter.verb === undefined || r.verb === filter.verb) &&
    (filter.resource === undefined || r.resource === filter.resource) &&
    (filter.namespace === undefined || r.namespace === filter.namespace) &&
    (filter.name === undefined || r.name === filter.name)
  );
}

import { ApiMetrics } from './metrics.ts';

export const WRITE_VERBS: Verb[] = ['create', 'update', 'patch', 'delete', 'deletecollection'];

export class RequestLog {
  private records: RequestRecord[] = [];
  private dropped = 0;
  private readonly open = new Set<InFlightRequest>();
  /** Cumulative request metrics (`/metrics`); `reset` leaves them, as Prometheus counters only grow. */
  readonly metrics = new ApiMetrics();

  constructor(private readonly capacity = 200_000) {}

  add(record: RequestRecord): void {
    this.metrics.observe(record);
    this.records.push(record);
    if (this.records.length > this.capacity) {
      const excess = this.records.length - this.capacity;
      this.records.splice(0, excess);
      this.dropped += excess;
    }
  }

  /** A request arrived; the returned function marks it served (its record is `add`ed then). */
  opened(request: InFlightRequest): () => void {
    this.open.add(request);
    return () => this.open.delete(request);
  }

  /** Requests arrived and not yet closed (watches among them), optionally filtered. */
  inFlight(filter: RequestFilter = {}): InFlightRequest[] {
    return [...this.open].filter((r) => matches(r, filter));
  }

  /** Records so far, optionally filtered. */
  entries(filter: RequestFilter = {}): RequestRecord[] {
    return this.records.filter((r) => matches(r, filter));
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
