/**
 * Durable state for a simulator that keeps its cluster in a file (`startSim({ statePath })`, what
 * `longshore dev` uses): a snapshot (`cluster.json`) plus an append-only journal of every write
 * since (`cluster.json.journal`, one JSON line per store event).
 *
 * - Each store event is written to the journal as it happens (one write(2), synchronous), so a
 *   killed process (kill -9) loses nothing the store accepted.
 * - Before the API answers a write, the journal is fsynced (`durable()`); requests that arrive
 *   while an fsync runs share the next one (group commit), so the answer "created" also survives
 *   a machine crash.
 * - When the journal grows past a threshold it is compacted in the background: the journal is
 *   rotated to `.journal.compacting`, the store is serialized at that revision, written to a temp
 *   file, fsynced and renamed over the snapshot, and only then is the rotated journal removed.
 *   Recovery loads the snapshot and replays `.journal.compacting` then `.journal`, skipping
 *   records at or below the snapshot's revision, so a crash at any step loses nothing.
 *
 * Files are created 0600: the cluster holds Secrets.
 */
import {
  closeSync,
  existsSync,
  fchmodSync,
  fdatasync,
  fdatasyncSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { KubeObject } from '../types.ts';
import { type ObjectStore, objectKey, type StoreEvent } from './object-store.ts';

const fdatasyncAsync = promisify(fdatasync);

/** Journal size that triggers a background compaction into the snapshot (default). */
const COMPACT_AFTER_BYTES = 8 * 1024 * 1024;

interface SnapshotFile {
  version: 1;
  resourceVersion: number;
  objects: { typeKey: string; object: KubeObject }[];
}

/** One journal line: an object stored (`put`) or removed (`del`) at revision `rv`. */
type JournalRecord =
  | { rv: number; op: 'put'; typeKey: string; object: KubeObject }
  | { rv: number; op: 'del'; typeKey: string; namespace?: string; name: string };

export function readSnapshotFile(path: string): SnapshotFile {
  const snapshot = JSON.parse(readFileSync(path, 'utf8')) as SnapshotFile;
  if (snapshot.version !== 1)
    throw new Error(`${path}: unsupported kube-sim snapshot version ${String(snapshot.version)}`);
  return snapshot;
}

/** Writes a snapshot atomically: temp file (0600), fsync, rename, fsync of the directory. */
export function writeSnapshotFile(path: string, store: ObjectStore): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, serialize(store));
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  syncDirectory(dirname(path));
}

export class DurableState {
  private fd: number;
  private appended = 0;
  private synced = 0;
  private syncing: Promise<void> | undefined;
  private journalBytes = 0;
  private compacting: Promise<void> | undefined;
  private closed = false;
  private readonly unsubscribe: () => void;

  /**
   * Loads `statePath` and its journals into `store` (when they exist), writes a fresh snapshot and
   * starts journaling every change of the store.
   */
  static open(
    store: ObjectStore,
    statePath: string,
    onError: (err: unknown) => void,
    options: { compactAfterBytes?: number } = {},
  ): DurableState {
    recover(store, statePath);
    writeSnapshotFile(statePath, store);
    rmSync(compactingPath(statePath), { force: true });
    removeTempFiles(statePath);
    return new DurableState(store, statePath, onError, options.compactAfterBytes ?? COMPACT_AFTER_BYTES);
  }

  private constructor(
    private readonly store: ObjectStore,
    private readonly statePath: string,
    private readonly onError: (err: unknown) => void,
    private readonly compactAfterBytes: number,
  ) {
    this.fd = openJournal(journalPath(statePath), 'w');
    this.unsubscribe = store.subscribe((event) => this.append(event));
  }

  /**
   * Resolves when every write so far is on disk; undefined when nothing is pending, so callers
   * that need not wait (nothing written) pay nothing.
   */
  durable(): Promise<void> | undefined {
    if (this.closed || this.synced >= this.appended) return undefined;
    return this.syncUpTo(this.appended);
  }

  /** Resolves when no fsync and no compaction is running (tests). */
  async idle(): Promise<void> {
    while (this.syncing || this.compacting) await (this.syncing ?? this.compacting);
  }

  /** Final compaction: the snapshot holds everything, the journal is empty. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.unsubscribe();
    await this.idle();
    this.closed = true;
    writeSnapshotFile(this.statePath, this.store);
    closeSync(this.fd);
    rmSync(journalPath(this.statePath), { force: true });
    rmSync(compactingPath(this.statePath), { force: true });
  }

  private append(event: StoreEvent): void {
    const record: JournalRecord =
      event.type === 'DELETED'
        ? {
            rv: event.rv,
            op: 'del',
            typeKey: event.typeKey,
            name: event.object.metadata.name!,
            ...(event.object.metadata.namespace ? { namespace: event.object.metadata.namespace } : {}),
          }
        : { rv: event.rv, op: 'put', typeKey: event.typeKey, object: event.object };
    const line = `${JSON.stringify(record)}\n`;
    this.journalBytes += writeSync(this.fd, line);
    this.appended += 1;
    if (this.journalBytes > this.compactAfterBytes && !this.compacting) {
      this.compacting = this.compact()
        .catch((err: unknown) => this.onError(err))
        .finally(() => {
          this.compacting = undefined;
        });
    }
  }

  private async syncUpTo(target: number): Promise<void> {
    while (this.synced < target) {
      if (!this.syncing) {
        const upTo = this.appended;
        const fd = this.fd;
        this.syncing = fdatasyncAsync(fd)
          .then(() => {
            this.synced = Math.max(this.synced, upTo);
          })
          .finally(() => {
            this.syncing = undefined;
          });
      }
      await this.syncing;
    }
  }

  private async compact(): Promise<void> {
    // Let a running fsync finish on the journal it started on before that journal is rotated.
    while (this.syncing) await this.syncing;
    if (this.closed) return;
    // Synchronous from here to the rotation: no event can slip between the serialized state and
    // the new journal.
    if (existsSync(compactingPath(this.statePath))) {
      // A previous compaction failed after rotating: its records are only there and in memory.
      // Save memory first, or the rotation below would overwrite them.
      writeSnapshotFile(this.statePath, this.store);
      rmSync(compactingPath(this.statePath), { force: true });
    }
    fdatasyncSync(this.fd);
    this.synced = this.appended;
    closeSync(this.fd);
    renameSync(journalPath(this.statePath), compactingPath(this.statePath));
    this.fd = openJournal(journalPath(this.statePath), 'w');
    this.journalBytes = 0;
    const text = serialize(this.store);
    // The slow part (writing and syncing the whole snapshot) runs without blocking the API.
    const tmp = `${this.statePath}.tmp-${process.pid}`;
    const handle = await open(tmp, 'w', 0o600);
    try {
      await handle.chmod(0o600);
      await handle.writeFile(text);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(tmp, this.statePath);
    syncDirectory(dirname(this.statePath));
    await rm(compactingPath(this.statePath), { force: true });
  }
}

function journalPath(statePath: string): string {
  return `${statePath}.journal`;
}

function compactingPath(statePath: string): string {
  return `${statePath}.journal.compacting`;
}

function openJournal(path: string, flags: 'w' | 'a'): number {
  const fd = openSync(path, flags, 0o600);
  fchmodSync(fd, 0o600);
  return fd;
}

function serialize(store: ObjectStore): string {
  const snapshot: SnapshotFile = { version: 1, resourceVersion: store.currentRv, objects: store.dump() };
  return JSON.stringify(snapshot);
}

/** Snapshot, then the rotated journal, then the current one; records the snapshot has are skipped. */
function recover(store: ObjectStore, statePath: string): void {
  const objects = new Map<string, { typeKey: string; object: KubeObject }>();
  let rv = 0;
  if (existsSync(statePath)) {
    const snapshot = readSnapshotFile(statePath);
    rv = snapshot.resourceVersion;
    for (const entry of snapshot.objects) objects.set(entryKey(entry.typeKey, entry.object), entry);
  }
  const snapshotRv = rv;
  for (const path of [compactingPath(statePath), journalPath(statePath)]) {
    if (!existsSync(path)) continue;
    for (const record of readJournal(path)) {
      if (record.rv <= snapshotRv) continue;
      if (record.op === 'put')
        objects.set(entryKey(record.typeKey, record.object), {
          typeKey: record.typeKey,
          object: record.object,
        });
      else objects.delete(`${record.typeKey} ${objectKey(record.namespace, record.name)}`);
      rv = Math.max(rv, record.rv);
    }
  }
  store.load([...objects.values()], rv);
}

function readJournal(path: string): JournalRecord[] {
  const records: JournalRecord[] = [];
  const lines = readFileSync(path, 'utf8').split('\n');
  for (const [i, line] of lines.entries()) {
    if (line === '') continue;
    try {
      records.push(JSON.parse(line) as JournalRecord);
    } catch (err) {
      // Only the last line can be torn (a crash mid-write): it was never answered as written.
      if (i >= lines.length - 2) break;
      throw new Error(`${path}: line ${i + 1} is not a journal record: ${(err as Error).message}`);
    }
  }
  return records;
}

function entryKey(typeKey: string, object: KubeObject): string {
  return `${typeKey} ${objectKey(object.metadata.namespace, object.metadata.name!)}`;
}

/** Temp snapshots a crashed process left (`cluster.json.tmp-PID`): never renamed, never needed. */
function removeTempFiles(statePath: string): void {
  const prefix = `${basename(statePath)}.tmp-`;
  const dir = dirname(statePath);
  for (const entry of readdirSync(dir))
    if (entry.startsWith(prefix) && entry !== `${prefix}${process.pid}`)
      rmSync(join(dir, entry), { force: true });
}

function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic.
  }
}
