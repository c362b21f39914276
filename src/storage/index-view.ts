/**
 * RevisionInfo from index Secrets, as the informer holds them: labels and annotations for the
 * metadata, the manifest for object identities and digests. Never a chunk. A manifest that cannot
 * be decoded leaves the revision listed (with `unreadable` set) instead of failing history.
 * Decoded manifests are memoized by uid and manifest text: status changes replace the cached
 * object but not its manifest, and history is asked for often. Their entries come from one pool
 * (entry-pool.ts), so the many entries revisions repeat are held once.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { EntryPool } from './entry-pool.ts';
import { decodeManifest, ManifestError, type StoredEntry } from './manifest.ts';
import {
  ANNOTATION_CHART,
  ANNOTATION_CHART_VERSION,
  ANNOTATION_CREATED_AT,
  ANNOTATION_DESCRIPTION,
  ANNOTATION_DIGEST,
  ANNOTATION_HOLDER,
  ANNOTATION_MODIFIED_AT,
  ANNOTATION_SECRET_VALUES,
  isReleaseStatus,
  LABEL_APP,
  LABEL_RELEASE,
  LABEL_REVISION,
  LABEL_STATUS,
  MANIFEST_KEY,
  SECRET_VALUES_REDACTED,
} from './names.ts';
import type { RevisionInfo } from './types.ts';

export interface IndexEntry {
  secret: V1Secret;
  info: RevisionInfo;
  /** Undefined when the manifest cannot be decoded (`info.unreadable` says why). */
  entries?: StoredEntry[];
}

export class IndexView {
  private readonly memo = new Map<string, { raw: string; entries?: StoredEntry[]; problem?: string }>();
  private readonly pool = new EntryPool();

  view(secret: V1Secret): IndexEntry | undefined {
    const labels = secret.metadata?.labels ?? {};
    const annotations = secret.metadata?.annotations ?? {};
    const release = labels[LABEL_RELEASE];
    const revision = Number(labels[LABEL_REVISION]);
    if (!release || !Number.isSafeInteger(revision) || revision < 1) return undefined;
    const { entries, problem } = this.manifestOf(secret);
    const status = labels[LABEL_STATUS];
    const holder = annotations[ANNOTATION_HOLDER];
    const info: RevisionInfo = {
      release,
      app: labels[LABEL_APP] ?? '',
      revision,
      status: isReleaseStatus(status) ? status : 'unknown',
      chart: {
        name: annotations[ANNOTATION_CHART] ?? '',
        version: annotations[ANNOTATION_CHART_VERSION] ?? '',
      },
      digest: annotations[ANNOTATION_DIGEST] ?? '',
      description: annotations[ANNOTATION_DESCRIPTION] ?? '',
      createdAt: annotations[ANNOTATION_CREATED_AT] ?? '',
      modifiedAt: annotations[ANNOTATION_MODIFIED_AT] ?? annotations[ANNOTATION_CREATED_AT] ?? '',
      ...(holder !== undefined ? { holder } : {}),
      objects: (entries ?? [])
        .filter((e) => e.type === 'object' && e.ref)
        .map((e) => ({ ...e.ref!, digest: e.digest })),
      ...(problem ? { unreadable: problem } : {}),
      ...(annotations[ANNOTATION_SECRET_VALUES] === SECRET_VALUES_REDACTED ? { redacted: true } : {}),
    };
    return { secret, info, ...(entries ? { entries } : {}) };
  }

  /** Drops memoized manifests of indexes no longer present (called with the live uids). */
  retain(uids: Set<string>): void {
    if (this.memo.size <= uids.size * 2 + 16) return;
    for (const uid of this.memo.keys()) if (!uids.has(uid)) this.memo.delete(uid);
    this.pool.retain([...this.memo.values()].flatMap((m) => (m.entries ? [m.entries] : [])));
  }

  private manifestOf(secret: V1Secret): { entries?: StoredEntry[]; problem?: string } {
    const raw = secret.data?.[MANIFEST_KEY] ?? '';
    const uid = secret.metadata?.uid ?? secret.metadata?.name ?? '';
    const hit = this.memo.get(uid);
    if (hit && hit.raw === raw) {
      // The same text, but a status change brought a new copy of it: hold that one only.
      hit.raw = raw;
      return hit;
    }
    let result: { entries?: StoredEntry[]; problem?: string };
    try {
      if (!raw) throw new ManifestError('the index has no manifest');
      result = { entries: decodeManifest(Buffer.from(raw, 'base64')).map((e) => this.pool.share(e)) };
    } catch (err) {
      result = { problem: (err as Error).message };
    }
    this.memo.set(uid, { raw, ...result });
    return result;
  }
}
