/**
 * ReleaseHistory in memory: the same semantics as the Secret driver without a cluster, so the
 * release engine's decisions can be tested in milliseconds (test/unit/releases/engine-decisions.
 * test.ts). The contract test (test/integration/storage/contract.test.ts) runs one suite against
 * both drivers. Shared with the Secret driver, so they cannot drift apart: the input checks
 * (validateRevisionInput), the digests (encodeContent), description clamping and the prune rule
 * (revisionsOverCap). Content is kept as canonical JSON and parsed on every read, as the Secret
 * driver decodes it: callers never share objects with the store.
 *
 * Not modelled: sizes (no ReleaseTooLargeError: that limit belongs to Secrets), unreadable
 * revisions, crashes between writes, and other workers' caches lagging behind.
 */
import { NotFoundError } from '../core/errors.ts';
import { canonicalJson } from './canonical-json.ts';
import { encodeContent } from './entries.ts';
import { MemoryAppRecords } from './memory-app-records.ts';
import { clampDescription, requireReleaseStatus } from './names.ts';
import { revisionsOverCap } from './pruner.ts';
import { deployedOf, lastOf, type ReleaseHistory } from './release-history.ts';
import { validateRevisionInput } from './revision-writer.ts';
import {
  type CreateRevisionInput,
  type ReleaseContent,
  type ReleaseStatus,
  RevisionExistsError,
  type RevisionInfo,
  type RewriteRevisionInput,
} from './types.ts';

export interface MemoryReleaseHistoryOptions {
  /**
   * The app records `create` ensures, whose deletion removes an app's history (as the Secret
   * records own their release Secrets). Default: records of its own (`apps`).
   */
  // biome-ignore lint/suspicious/noExplicitAny: records of any spec type own history alike
  apps?: MemoryAppRecords<any>;
  /** Revisions `prune` keeps by default (0: unlimited). Default 10, as the Secret driver. */
  historyMax?: number;
  now?: () => Date;
}

interface StoredRevision {
  info: RevisionInfo;
  /** Canonical JSON of the content. */
  content: string;
}

export class MemoryReleaseHistory implements ReleaseHistory {
  // biome-ignore lint/suspicious/noExplicitAny: see MemoryReleaseHistoryOptions.apps
  readonly apps: MemoryAppRecords<any>;
  /** Writes so far (revisions created, rewritten, changed or deleted): tests check "write-free". */
  writes = 0;
  private readonly byRelease = new Map<string, Map<number, StoredRevision>>();
  private readonly historyMax: number;
  private readonly now: () => Date;

  constructor(options: MemoryReleaseHistoryOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.apps = options.apps ?? new MemoryAppRecords({ now: this.now });
    this.historyMax = options.historyMax ?? 10;
    this.apps.onDelete((app) => {
      for (const release of this.releases(app)) this.byRelease.delete(release);
    });
  }

  history(release: string): RevisionInfo[] {
    return this.stored(release).map((r) => structuredClone(r.info));
  }

  last(release: string): RevisionInfo | undefined {
    return lastOf(this.history(release));
  }

  deployed(release: string): RevisionInfo | undefined {
    return deployedOf(this.history(release));
  }

  releases(app?: string): string[] {
    const names: string[] = [];
    for (const [release, revisions] of this.byRelease) {
      if (revisions.size === 0) continue;
      if (app === undefined || [...revisions.values()].some((r) => r.info.app === app)) names.push(release);
    }
    return names.sort();
  }

  async read(release: string, revision: number): Promise<ReleaseContent> {
    const found = this.byRelease.get(release)?.get(revision);
    if (!found) throw new NotFoundError(`release ${release} has no revision ${revision}`);
    return JSON.parse(found.content) as ReleaseContent;
  }

  async create(input: CreateRevisionInput): Promise<RevisionInfo> {
    validateRevisionInput(input);
    await this.apps.ensure(input.app);
    const encoded = encodeContent(input.content);
    const existing = this.byRelease.get(input.release)?.get(input.revision);
    if (existing) {
      // Ours (same holder, or both without one, and same content): a retried create. As the
      // Secret driver, returned as it is now.
      if (existing.info.holder === input.holder && existing.info.digest === encoded.digest)
        return structuredClone(existing.info);
      const holder = existing.info.holder;
      throw new RevisionExistsError(
        `release ${input.release} revision ${input.revision} already exists` +
          (holder ? ` (written by ${holder})` : '') +
          ': another writer got there first',
      );
    }
    const at = this.now().toISOString();
    const info: RevisionInfo = {
      release: input.release,
      app: input.app,
      revision: input.revision,
      status: input.status,
      chart: { name: input.content.chart.name, version: input.content.chart.version },
      digest: encoded.digest,
      description: clampDescription(input.description),
      createdAt: at,
      modifiedAt: at,
      ...(input.holder !== undefined ? { holder: input.holder } : {}),
      objects: objectsOf(encoded),
      ...(input.redacted ? { redacted: true } : {}),
    };
    let revisions = this.byRelease.get(input.release);
    if (!revisions) {
      revisions = new Map();
      this.byRelease.set(input.release, revisions);
    }
    revisions.set(input.revision, { info, content: canonicalJson(input.content) });
    this.writes++;
    return structuredClone(info);
  }

  async rewrite(input: RewriteRevisionInput): Promise<RevisionInfo> {
    const found = this.byRelease.get(input.release)?.get(input.revision);
    if (!found) throw new NotFoundError(`release ${input.release} has no revision ${input.revision}`);
    const encoded = encodeContent(input.content);
    const info = found.info;
    if (info.digest !== encoded.digest) {
      // As the Secret driver: new content, digest and objects; number, status, description,
      // holder, chart annotation and times stay; the redacted marker is set only when asked.
      found.content = canonicalJson(input.content);
      info.digest = encoded.digest;
      info.objects = objectsOf(encoded);
      delete info.redacted;
      this.writes++;
    }
    if (input.redacted && !info.redacted) {
      info.redacted = true;
      this.writes++;
    }
    return structuredClone(info);
  }

  async setStatus(
    release: string,
    revision: number,
    status: ReleaseStatus,
    description?: string,
  ): Promise<RevisionInfo> {
    requireReleaseStatus(status);
    const found = this.byRelease.get(release)?.get(revision);
    if (!found) throw new NotFoundError(`release ${release} has no revision ${revision}`);
    found.info.status = status;
    found.info.modifiedAt = this.now().toISOString();
    if (description !== undefined) found.info.description = clampDescription(description);
    this.writes++;
    return structuredClone(found.info);
  }

  async prune(release: string, keep?: number): Promise<{ revisions: number; chunks: number }> {
    const doomed = revisionsOverCap(this.stored(release), keep ?? this.historyMax);
    const revisions = this.byRelease.get(release);
    for (const r of doomed) revisions?.delete(r.info.revision);
    this.writes += doomed.length;
    return { revisions: doomed.length, chunks: 0 };
  }

  async deleteRelease(release: string): Promise<void> {
    const revisions = this.byRelease.get(release);
    this.writes += revisions?.size ?? 0;
    this.byRelease.delete(release);
  }

  private stored(release: string): StoredRevision[] {
    return [...(this.byRelease.get(release)?.values() ?? [])].sort(
      (a, b) => a.info.revision - b.info.revision,
    );
  }
}

function objectsOf(encoded: ReturnType<typeof encodeContent>): RevisionInfo['objects'] {
  return encoded.entries
    .filter((e) => e.type === 'object' && e.ref)
    .map((e) => ({ ...e.ref!, digest: e.digest }));
}
