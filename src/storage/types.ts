/**
 * The release storage contract between the release engine (src/releases) and the driver that
 * keeps release history in the cluster (this folder). Format: docs/storage-format.md.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { LongshoreError } from '../core/errors.ts';

/** Helm's lifecycle statuses. */
export type ReleaseStatus =
  | 'unknown'
  | 'pending-install'
  | 'pending-upgrade'
  | 'pending-rollback'
  | 'deployed'
  | 'superseded'
  | 'failed'
  | 'uninstalling'
  | 'uninstalled';

export const PENDING_STATUSES: ReleaseStatus[] = ['pending-install', 'pending-upgrade', 'pending-rollback'];

/** A rendered object, as applied. */
export type ReleaseObject = KubernetesObject & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
};

/** Identity of an object of a release: enough to delete it or find it live. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** The immutable content of one revision. */
export interface ReleaseContent {
  chart: { name: string; version: string };
  /** The values the chart was rendered with (canonical JSON; may be large). */
  values: Record<string, unknown>;
  /** Rendered objects, in apply order. */
  objects: ReleaseObject[];
}

/** What history, status and list need, read from index metadata only (no payload decoding). */
export interface RevisionInfo {
  release: string;
  app: string;
  revision: number;
  status: ReleaseStatus;
  chart: { name: string; version: string };
  /** sha256 of chart, values and objects (canonical JSON): equal digests mean equal content. */
  digest: string;
  description: string;
  createdAt: string;
  modifiedAt: string;
  /** Who holds a pending revision (the job's idempotency key), to recover it after a crash. */
  holder?: string;
  /** The revision's objects with the digest of each one's canonical JSON (from the index manifest). */
  objects: (ObjectRef & { digest: string })[];
  /**
   * Set when the index's manifest cannot be decoded (corrupt, or a newer format): the revision
   * is still listed, `objects` is empty and `read` throws UnreadableRevisionError.
   */
  unreadable?: string;
  /** The content keeps no Secret values (written with `redacted`, or rewritten so). */
  redacted?: boolean;
}

/** The app record: one per app in the system namespace; owner of all its release Secrets. */
export interface AppRecord {
  app: string;
  uid: string;
  createdAt: string;
  settings: Record<string, unknown>;
}

export interface CreateRevisionInput {
  app: string;
  release: string;
  revision: number;
  status: ReleaseStatus;
  content: ReleaseContent;
  description: string;
  holder?: string;
  /**
   * The content keeps no Secret values (the engine stores digests in their place). Recorded on the
   * index; such a revision never shares a chunk with a revision that holds values.
   */
  redacted?: boolean;
}

export interface RewriteRevisionInput {
  release: string;
  revision: number;
  content: ReleaseContent;
  redacted?: boolean;
}

export interface ReleaseStore {
  /** Starts the informers; resolves when their first lists arrived. */
  start(): Promise<void>;
  stop(): Promise<void>;

  /** The app's record, created (with these settings) when missing. */
  ensureApp(app: string, settings?: Record<string, unknown>): Promise<AppRecord>;
  /** Replaces the app's settings (creates the record when missing); no write when equal. */
  setAppSettings(app: string, settings: Record<string, unknown>): Promise<AppRecord>;
  getApp(app: string): AppRecord | undefined;
  /** Deletes the app record: the cluster's garbage collector removes every release Secret of the app. */
  deleteApp(app: string): Promise<void>;

  /** Revisions of a release, oldest first, from the cache (no API reads, no decoding). */
  history(release: string): RevisionInfo[];
  last(release: string): RevisionInfo | undefined;
  /** The newest revision with status `deployed`. */
  deployed(release: string): RevisionInfo | undefined;
  /** Release names (of one app, or all). */
  releases(app?: string): string[];

  /** Decodes a revision's content (chunks read through an LRU). Throws UnreadableRevisionError. */
  read(release: string, revision: number): Promise<ReleaseContent>;
  /**
   * Stores a new revision, crash-safe: chunks first, then the index (create: AlreadyExists means
   * another writer, RevisionExistsError), nothing deleted. Throws ReleaseTooLargeError before
   * writing anything when the content is over the configured cap.
   */
  create(input: CreateRevisionInput): Promise<RevisionInfo>;
  /**
   * Replaces a revision's content, keeping its number, status, description, holder and times
   * (the redaction of Secret values in history written before it). Crash-safe: new chunks, then
   * the index (one update), then the chunks nothing references any more. Idempotent.
   */
  rewrite(input: RewriteRevisionInput): Promise<RevisionInfo>;
  /** Changes a revision's status (and description); labels and annotations only. */
  setStatus(
    release: string,
    revision: number,
    status: ReleaseStatus,
    description?: string,
  ): Promise<RevisionInfo>;
  /** Deletes revisions over `keep` (never the last deployed one), then chunks nothing references. */
  prune(release: string, keep?: number): Promise<{ revisions: number; chunks: number }>;
  /** Deletes a whole release's history (after an uninstall), then unreferenced chunks. */
  deleteRelease(release: string): Promise<void>;
  /**
   * Deletes chunks no index references (left by a crash between writing chunks and the index).
   * Chunks younger than `minAgeMs` (default: the store's orphan grace, 10 minutes) are kept: they
   * may belong to an index another worker is about to create.
   */
  sweepOrphans(options?: { minAgeMs?: number }): Promise<number>;
}

export class ReleaseTooLargeError extends LongshoreError {
  readonly code = 'RELEASE_TOO_LARGE';
  constructor(
    message: string,
    /** What was measured against which limit (bytes), when the driver knows. */
    readonly sizes?: { renderedBytes: number; storedBytes: number; limitBytes: number },
  ) {
    super(message);
  }
}

export class UnreadableRevisionError extends LongshoreError {
  readonly code = 'UNREADABLE_REVISION';
}

export class RevisionExistsError extends LongshoreError {
  readonly code = 'REVISION_EXISTS';
}
