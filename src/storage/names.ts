/**
 * Names, types, labels and annotations of release storage Secrets (docs/storage-format.md).
 * Everything lives in the fleet's system namespace; labels carry what the informers select on and
 * what history needs, annotations what does not fit a label value (timestamps, description).
 */

import { DNS1123_LABEL, DNS1123_LABEL_MESSAGE } from '../../rules/names.ts';
import { InvalidInputError } from '../core/errors.ts';
import type { ReleaseStatus } from './types.ts';

export const DEFAULT_NAMESPACE = 'longshore-system';

export const RELEASE_STATUSES: readonly ReleaseStatus[] = [
  'unknown',
  'pending-install',
  'pending-upgrade',
  'pending-rollback',
  'deployed',
  'superseded',
  'failed',
  'uninstalling',
  'uninstalled',
];

export function isReleaseStatus(value: unknown): value is ReleaseStatus {
  return typeof value === 'string' && (RELEASE_STATUSES as readonly string[]).includes(value);
}

/** A status a caller asks a revision to take: InvalidInputError, before any write, when unknown. */
export function requireReleaseStatus(status: ReleaseStatus): void {
  if (!isReleaseStatus(status)) {
    throw new InvalidInputError([{ path: 'status', message: `unknown status ${String(status)}` }], 'status');
  }
}

export const TYPE_APP = 'longshore.dev/app.v1';
export const TYPE_INDEX = 'longshore.dev/release.v1';
export const TYPE_CHUNK = 'longshore.dev/chunk.v1';

export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'longshore';
export const LABEL_KIND = 'longshore.dev/kind';
export const LABEL_APP = 'longshore.dev/app';
export const LABEL_RELEASE = 'longshore.dev/release';
export const LABEL_REVISION = 'longshore.dev/revision';
export const LABEL_STATUS = 'longshore.dev/status';

export const ANNOTATION_CHART = 'longshore.dev/chart';
export const ANNOTATION_CHART_VERSION = 'longshore.dev/chart-version';
export const ANNOTATION_DIGEST = 'longshore.dev/digest';
export const ANNOTATION_CREATED_AT = 'longshore.dev/created-at';
export const ANNOTATION_MODIFIED_AT = 'longshore.dev/modified-at';
export const ANNOTATION_DESCRIPTION = 'longshore.dev/description';
export const ANNOTATION_HOLDER = 'longshore.dev/holder';
/**
 * "true" once every chunk the index uses lists it as owner (write step 4 completed). Absent after a
 * crash between steps 3 and 4: the retry, or prune before it deletes anything, completes it.
 */
export const ANNOTATION_CHUNKS_OWNED = 'longshore.dev/chunks-owned';
/**
 * `digests` when the revision's content keeps no Secret values (keys and digests only, see
 * src/releases/secret-values.ts). Absent on history written before that: the redaction migration
 * reads and rewrites those revisions, and skips marked ones without reading a chunk.
 */
export const ANNOTATION_SECRET_VALUES = 'longshore.dev/secret-values';
export const SECRET_VALUES_REDACTED = 'digests';
/**
 * Chunks a rewrite (`rewrite`) replaced, comma-separated: deleted once nothing references them,
 * then the annotation is removed. Present after a crash in between: the next rewrite finishes it.
 */
export const ANNOTATION_REPLACED_CHUNKS = 'longshore.dev/replaced-chunks';
/** `<rendered bytes>/<compressed bytes>` of the whole revision, for operators (`kubectl get -o yaml`). */
export const ANNOTATION_SIZE = 'longshore.dev/size';

/** The index's data key holding the manifest (raw JSON bytes). */
export const MANIFEST_KEY = 'manifest';
/** The app record's data key holding its settings (canonical JSON). */
export const SETTINGS_KEY = 'settings';

export type StorageKind = 'app' | 'index' | 'chunk';

export const APP_PREFIX = 'longshore.app.';
export const INDEX_PREFIX = 'longshore.release.v1.';
export const CHUNK_PREFIX = 'longshore.chunk.';

export const appRecordName = (app: string) => `${APP_PREFIX}${app}`;
export const indexName = (release: string, revision: number) => `${INDEX_PREFIX}${release}.v${revision}`;

/** The label selector of one kind of storage Secret. */
export function selectorFor(kind: StorageKind): string {
  return `${LABEL_MANAGED_BY}=${MANAGED_BY},${LABEL_KIND}=${kind}`;
}

export function labelsFor(kind: StorageKind, extra: Record<string, string>): Record<string, string> {
  return { [LABEL_MANAGED_BY]: MANAGED_BY, [LABEL_KIND]: kind, ...extra };
}

/** Longest description kept in the index annotation (annotations total at most 256 KiB). */
export const MAX_DESCRIPTION = 2048;

export function clampDescription(description: string): string {
  return description.length <= MAX_DESCRIPTION
    ? description
    : `${description.slice(0, MAX_DESCRIPTION - 1)}…`;
}

/**
 * Problems with an app or release name as used here: both become label values (≤ 63) and parts
 * of Secret names; release names are limited to 53 like Helm's, leaving room for `.v<revision>`.
 */
export function nameProblem(what: 'app' | 'release', name: string): string | undefined {
  const max = what === 'app' ? 63 : 53;
  if (name.length === 0 || name.length > max) return `must be 1 to ${max} characters (got ${name.length})`;
  if (!DNS1123_LABEL.test(name)) return DNS1123_LABEL_MESSAGE;
  return undefined;
}
