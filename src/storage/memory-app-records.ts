/**
 * AppRecords in memory, for tests that need no cluster (test/unit/releases/engine-decisions.test.ts)
 * and for the contract test that holds it to the Secret driver's behaviour
 * (test/integration/storage/contract.test.ts). Specs are kept as canonical JSON and decoded on
 * every read through the same codec path as the Secret records, so a spec that round-trips here
 * round-trips there.
 */
import { randomUUID } from 'node:crypto';
import { InvalidInputError } from '../core/errors.ts';
import { type AppRecord, type AppRecords, RAW_SPEC, type SpecCodec, withDecodedSpec } from './app-records.ts';
import { canonicalJson } from './canonical-json.ts';
import { nameProblem } from './names.ts';

interface StoredRecord {
  app: string;
  uid: string;
  createdAt: string;
  /** Canonical JSON of the saved spec. */
  spec?: string;
}

export interface MemoryAppRecordsOptions<Spec> {
  spec?: SpecCodec<Spec>;
  now?: () => Date;
}

export class MemoryAppRecords<Spec = unknown> implements AppRecords<Spec> {
  private readonly records = new Map<string, StoredRecord>();
  private readonly dependents: ((app: string) => void)[] = [];
  private readonly codec: SpecCodec<Spec>;
  private readonly now: () => Date;
  /** Writes so far (records created, specs changed, records deleted): tests check "write-free". */
  writes = 0;

  constructor(options: MemoryAppRecordsOptions<Spec> = {}) {
    this.codec = options.spec ?? (RAW_SPEC as SpecCodec<Spec>);
    this.now = options.now ?? (() => new Date());
  }

  get(app: string): AppRecord<Spec> | undefined {
    const stored = this.records.get(app);
    return stored ? this.toRecord(stored) : undefined;
  }

  list(): AppRecord<Spec>[] {
    return [...this.records.keys()].sort().map((app) => this.toRecord(this.records.get(app)!));
  }

  /** Memory has no cache to be behind: the same as list(). */
  async listFresh(): Promise<AppRecord<Spec>[]> {
    return this.list();
  }

  async ensure(app: string): Promise<AppRecord<Spec>> {
    return this.toRecord(this.ensureStored(app));
  }

  async saveSpec(app: string, spec: Spec): Promise<AppRecord<Spec>> {
    const stored = this.ensureStored(app);
    const wanted = canonicalJson(spec);
    if (stored.spec !== wanted) {
      stored.spec = wanted;
      this.writes++;
    }
    return this.toRecord(stored);
  }

  async delete(app: string): Promise<void> {
    if (!this.records.delete(app)) return;
    this.writes++;
    // What the garbage collector does for the Secret records: the app's history goes with it.
    for (const dependent of this.dependents) dependent(app);
  }

  /** Called with the app's name when its record is deleted (MemoryReleaseHistory drops its releases). */
  onDelete(listener: (app: string) => void): void {
    this.dependents.push(listener);
  }

  private ensureStored(app: string): StoredRecord {
    const problem = nameProblem('app', app);
    if (problem) throw new InvalidInputError([{ path: 'app', message: problem }], 'app name');
    let stored = this.records.get(app);
    if (!stored) {
      stored = { app, uid: randomUUID(), createdAt: this.now().toISOString() };
      this.records.set(app, stored);
      this.writes++;
    }
    return stored;
  }

  private toRecord(stored: StoredRecord): AppRecord<Spec> {
    const record: AppRecord<Spec> = { app: stored.app, uid: stored.uid, createdAt: stored.createdAt };
    return withDecodedSpec(
      record,
      stored.spec === undefined ? undefined : JSON.parse(stored.spec),
      this.codec,
    );
  }
}
