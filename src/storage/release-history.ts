/**
 * ReleaseHistory: what the release engine reads and writes of a release's revisions, shaped like
 * Helm's storage driver (pkg/storage/driver: Get/List/Create/Update/Delete) narrowed to the
 * engine's real operations. Reads come from memory (the Secret driver's informer cache, or the
 * in-memory driver's maps): no request, no decoding. Implementations: SecretReleaseStore
 * (secret-store.ts, the cluster) and MemoryReleaseHistory (memory-history.ts, fast tests); the
 * contract test (test/integration/storage/contract.test.ts) runs against both.
 *
 * What the engine must not see is kept out: the app records (app-records.ts) and maintenance
 * (start/stop, the orphan sweep: maintenance.ts).
 */
import type {
  CreateRevisionInput,
  ReleaseContent,
  ReleaseStatus,
  RevisionInfo,
  RewriteRevisionInput,
} from './types.ts';

/** The reads: enough for history, status and reports. */
export interface ReleaseHistoryReader {
  /** Revisions of a release, oldest first (no API reads, no decoding). */
  history(release: string): RevisionInfo[];
  last(release: string): RevisionInfo | undefined;
  /** The newest revision with status `deployed`. */
  deployed(release: string): RevisionInfo | undefined;
  /** Release names (of one app, or all), sorted. */
  releases(app?: string): string[];
  /**
   * Decodes a revision's content. NotFoundError when there is no such revision;
   * UnreadableRevisionError when it is listed but cannot be decoded.
   */
  read(release: string, revision: number): Promise<ReleaseContent>;
}

export interface ReleaseHistory extends ReleaseHistoryReader {
  /**
   * Stores a new revision (creating the app's record when missing: it owns the history). A
   * revision of that number already stored is ours when holder and content digest are equal
   * (returned as it is now: a retried create whose answer was lost), anyone else's otherwise:
   * RevisionExistsError. InvalidInputError for a bad app or release name, revision or status;
   * ReleaseTooLargeError, before anything is written, when the driver cannot store that much.
   */
  create(input: CreateRevisionInput): Promise<RevisionInfo>;
  /**
   * Replaces a revision's content, keeping its number, status, description, holder and times
   * (the redaction of Secret values in history written before it). Idempotent. NotFoundError
   * when there is no such revision.
   */
  rewrite(input: RewriteRevisionInput): Promise<RevisionInfo>;
  /**
   * Changes a revision's status (and description, when given) and its modification time.
   * InvalidInputError for an unknown status, NotFoundError when there is no such revision.
   */
  setStatus(
    release: string,
    revision: number,
    status: ReleaseStatus,
    description?: string,
  ): Promise<RevisionInfo>;
  /**
   * Deletes the oldest revisions over `keep` (default: the driver's history max; 0 keeps all),
   * never the newest deployed one, as Helm's --history-max.
   */
  prune(release: string, keep?: number): Promise<{ revisions: number; chunks: number }>;
  /** Deletes a whole release's history (after an uninstall). */
  deleteRelease(release: string): Promise<void>;
}

/** The newest revision of a history (oldest first): `last` of every driver. */
export function lastOf(history: readonly RevisionInfo[]): RevisionInfo | undefined {
  return history.at(-1);
}

/** The newest `deployed` revision of a history: `deployed` of every driver. */
export function deployedOf(history: readonly RevisionInfo[]): RevisionInfo | undefined {
  return history.filter((r) => r.status === 'deployed').at(-1);
}
