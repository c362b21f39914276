/**
 * The data of release storage: revisions, their content and metadata, and the errors the drivers
 * throw. The interfaces over them are in release-history.ts (what the engine reads and writes),
 * app-records.ts (one record per app, with its saved spec) and maintenance.ts (what only the
 * worker's connection runs). Format of the Secret driver: docs/storage-format.md.
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
