/**
 * SecretReleaseStore: release history (ReleaseHistory) and app records (`apps`, AppRecords) kept
 * in Secrets of the fleet's system namespace, read through informer caches (index Secrets and app
 * records, label-selected) and an LRU of immutable chunks, plus the maintenance only the worker's
 * cluster connection runs (StoreMaintenance). One class because both halves share the caches and
 * the Secret API; callers see the narrow interfaces. Format and rules: docs/storage-format.md.
 */
import { CoreV1Api, KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { NotFoundError } from '../core/errors.ts';
import type { CacheFences } from '../kube/cache-fence.ts';
import type { KubeClients } from '../kube/client.ts';
import { InformerCache } from '../kube/informer-cache.ts';
import type { RetryOptions } from '../kube/retry.ts';
import { ensureAppSecret, SecretAppRecords } from './app-record-secrets.ts';
import { RAW_SPEC, type SpecCodec } from './app-records.ts';
import { ChunkCache } from './chunk-cache.ts';
import { ChunkReader, EntryProblem } from './chunk-reader.ts';
import { ChunkTail } from './chunk-tail.ts';
import { allIndexes, currentChunks, revisionsOf, type StorageContext, type StoreHooks } from './context.ts';
import { decodeContent } from './entries.ts';
import { IndexView } from './index-view.ts';
import {
  DEFAULT_CHUNK_BYTES,
  DEFAULT_MAX_RELEASE_BYTES,
  MAX_CHUNK_BYTES,
  MIN_CHUNK_BYTES,
} from './limits.ts';
import type { StoreMaintenance, SweepOptions } from './maintenance.ts';
import {
  ANNOTATION_DESCRIPTION,
  ANNOTATION_MODIFIED_AT,
  clampDescription,
  DEFAULT_NAMESPACE,
  indexName,
  LABEL_RELEASE,
  LABEL_STATUS,
  requireReleaseStatus,
  selectorFor,
} from './names.ts';
import { deleteRelease, prune, sweepOrphans } from './pruner.ts';
import { deployedOf, lastOf, type ReleaseHistory } from './release-history.ts';
import { rewriteRevision } from './revision-rewriter.ts';
import { createRevision, validateRevisionInput } from './revision-writer.ts';
import { SecretApi } from './secret-api.ts';
import {
  type CreateRevisionInput,
  type ReleaseContent,
  type ReleaseStatus,
  type RevisionInfo,
  type RewriteRevisionInput,
  UnreadableRevisionError,
} from './types.ts';

export interface SecretReleaseStoreOptions<Spec = unknown> {
  /** A KubeConfig, or clients built from one (only `kc` and `core` are used). */
  kube: KubeConfig | Pick<KubeClients, 'kc' | 'core'>;
  /** The system namespace (LONGSHORE_NAMESPACE). Default `longshore-system`; created when missing. */
  namespace?: string;
  /** Cap on a revision's compressed size, reused entries included. Default 32 MiB. */
  maxReleaseBytes?: number;
  /** Budget of one Secret's data, keys included. Default 900 KiB (16 KiB … 960 KiB). */
  chunkBytes?: number;
  /** Memory for cached chunk contents. Default 64 MiB. */
  chunkCacheBytes?: number;
  /**
   * Watch new chunks into that cache as they are written, by any worker (chunk-tail.ts). Default
   * true; false leaves the cache to this process's own writes and GETs.
   */
  tailChunks?: boolean;
  /** Revisions `prune` keeps by default (0: unlimited). Default 10. */
  historyMax?: number;
  /** Chunks younger than this are never swept as orphans. Default 10 minutes. */
  orphanGraceMs?: number;
  /** In-call retries of transient API errors. Default withKubeRetry's (5 attempts from 100 ms). */
  retry?: RetryOptions;
  /** Told about informer (re)start failures, for logs. */
  onInformerError?(err: unknown): void;
  /** The cluster connection's cache fences, which both informers take part in (src/kube/cache-fence.ts). */
  fences?: CacheFences;
  /** Decodes the specs of app records (default: kept as stored JSON). See app-records.ts. */
  spec?: SpecCodec<Spec>;
  /** Test seam: called after every write step. */
  hooks?: StoreHooks;
  now?: () => Date;
}

export const STORE_DEFAULTS = {
  namespace: DEFAULT_NAMESPACE,
  maxReleaseBytes: DEFAULT_MAX_RELEASE_BYTES,
  chunkBytes: DEFAULT_CHUNK_BYTES,
  chunkCacheBytes: 64 * 1024 * 1024,
  historyMax: 10,
  orphanGraceMs: 10 * 60_000,
} as const;

export class SecretReleaseStore<Spec = unknown> implements ReleaseHistory, StoreMaintenance {
  private readonly ctx: StorageContext;
  private readonly tail?: ChunkTail;
  /** The app records, sharing this store's caches. */
  readonly apps: SecretAppRecords<Spec>;

  constructor(options: SecretReleaseStoreOptions<Spec>) {
    const kc = options.kube instanceof KubeConfig ? options.kube : options.kube.kc;
    const core = options.kube instanceof KubeConfig ? kc.makeApiClient(CoreV1Api) : options.kube.core;
    const namespace = options.namespace ?? STORE_DEFAULTS.namespace;
    const chunkBytes = options.chunkBytes ?? STORE_DEFAULTS.chunkBytes;
    if (chunkBytes < MIN_CHUNK_BYTES || chunkBytes > MAX_CHUNK_BYTES) {
      throw new RangeError(
        `chunkBytes must be from ${MIN_CHUNK_BYTES} to ${MAX_CHUNK_BYTES} (got ${chunkBytes})`,
      );
    }
    const api = new SecretApi(core, namespace, options.retry);
    const informer = (kind: 'index' | 'app') =>
      new InformerCache<V1Secret>({
        kc,
        path: `/api/v1/namespaces/${namespace}/secrets`,
        labelSelector: selectorFor(kind),
        list: () => core.listNamespacedSecret({ namespace, labelSelector: selectorFor(kind) }),
        // A release's history is read on every job: found by its label, not by a scan of every
        // revision of every app (context.ts revisionsOf).
        ...(kind === 'index' ? { indexLabel: LABEL_RELEASE } : {}),
        // Storage never reads field ownership; at 10 revisions per app it was the largest part of
        // these Secrets in memory.
        dropManagedFields: true,
        ...(options.onInformerError ? { onError: options.onInformerError } : {}),
        ...(options.fences ? { fences: options.fences } : {}),
      });
    this.ctx = {
      api,
      namespace,
      indexes: informer('index'),
      apps: informer('app'),
      view: new IndexView(),
      reader: new ChunkReader(api, new ChunkCache(options.chunkCacheBytes ?? STORE_DEFAULTS.chunkCacheBytes)),
      limits: {
        chunkBytes,
        maxReleaseBytes: options.maxReleaseBytes ?? STORE_DEFAULTS.maxReleaseBytes,
        historyMax: options.historyMax ?? STORE_DEFAULTS.historyMax,
        orphanGraceMs: options.orphanGraceMs ?? STORE_DEFAULTS.orphanGraceMs,
      },
      hooks: options.hooks ?? {},
      now: options.now ?? (() => new Date()),
    };
    this.apps = new SecretAppRecords(this.ctx, options.spec ?? (RAW_SPEC as SpecCodec<Spec>));
    if (options.tailChunks ?? true) {
      this.tail = new ChunkTail({
        kc,
        core,
        namespace,
        cache: this.ctx.reader.cache,
        bad: this.ctx.reader.bad,
        warm: () => currentChunks(this.ctx),
        ...(options.onInformerError ? { onError: options.onInformerError } : {}),
      });
    }
  }

  get namespace(): string {
    return this.ctx.namespace;
  }

  /** Bytes of chunk content held in memory. */
  get cachedChunkBytes(): number {
    return this.ctx.reader.cache.bytes;
  }

  /** Chunks the tail put into the cache (0 without a tail). */
  get tailedChunks(): number {
    return this.tail?.received ?? 0;
  }

  async start(): Promise<void> {
    await Promise.all([this.ctx.indexes.start(), this.ctx.apps.start()]);
    await Promise.all([this.ctx.indexes.synced(), this.ctx.apps.synced()]);
    // The tail after the indexes: its warm-up keeps the chunks their current revisions use. Its
    // list covers the chunks written while the informers listed, its watch those written after.
    await this.tail?.start();
  }

  /** Settles when the chunk tail's warm-up list is read (tests, benchmarks). */
  get chunksWarmed(): Promise<number> {
    return (this.tail?.warming ?? Promise.resolve()).then(() => this.tail?.warmed ?? 0);
  }

  async stop(): Promise<void> {
    await Promise.all([this.ctx.indexes.stop(), this.ctx.apps.stop(), this.tail?.stop()]);
  }

  history(release: string): RevisionInfo[] {
    return revisionsOf(this.ctx, release).map((r) => r.info);
  }

  last(release: string): RevisionInfo | undefined {
    return lastOf(this.history(release));
  }

  deployed(release: string): RevisionInfo | undefined {
    return deployedOf(this.history(release));
  }

  releases(app?: string): string[] {
    const names = new Set<string>();
    for (const index of allIndexes(this.ctx)) {
      if (app === undefined || index.info.app === app) names.add(index.info.release);
    }
    return [...names].sort();
  }

  async read(release: string, revision: number): Promise<ReleaseContent> {
    const index = revisionsOf(this.ctx, release).find((r) => r.info.revision === revision);
    if (!index) throw new NotFoundError(`release ${release} has no revision ${revision}`);
    const unreadable = (why: string) =>
      new UnreadableRevisionError(`release ${release} revision ${revision} is unreadable: ${why}`);
    if (!index.entries) throw unreadable(index.info.unreadable ?? 'its manifest cannot be decoded');
    try {
      const bytes = await this.ctx.reader.read(index.entries);
      return decodeContent(index.entries.map((e, i) => ({ type: e.type, bytes: bytes[i]! })));
    } catch (err) {
      if (err instanceof EntryProblem) throw unreadable(err.message);
      if (err instanceof SyntaxError || err instanceof TypeError) throw unreadable(err.message);
      throw err;
    }
  }

  async create(input: CreateRevisionInput): Promise<RevisionInfo> {
    // Checked before the app record is ensured: bad input writes nothing (the contract test).
    validateRevisionInput(input);
    const appRecord = await ensureAppSecret(this.ctx, input.app, {});
    return createRevision(this.ctx, input, appRecord);
  }

  rewrite(input: RewriteRevisionInput): Promise<RevisionInfo> {
    return rewriteRevision(this.ctx, input);
  }

  async setStatus(
    release: string,
    revision: number,
    status: ReleaseStatus,
    description?: string,
  ): Promise<RevisionInfo> {
    requireReleaseStatus(status);
    const name = indexName(release, revision);
    const patched = await this.ctx.api.patchMerge(name, {
      metadata: {
        labels: { [LABEL_STATUS]: status },
        annotations: {
          [ANNOTATION_MODIFIED_AT]: this.ctx.now().toISOString(),
          ...(description !== undefined ? { [ANNOTATION_DESCRIPTION]: clampDescription(description) } : {}),
        },
      },
    });
    if (!patched) throw new NotFoundError(`release ${release} has no revision ${revision}`);
    this.ctx.indexes.wrote(patched);
    return this.ctx.view.view(patched)!.info;
  }

  prune(release: string, keep?: number): Promise<{ revisions: number; chunks: number }> {
    return prune(this.ctx, release, keep ?? this.ctx.limits.historyMax);
  }

  async deleteRelease(release: string): Promise<void> {
    await deleteRelease(this.ctx, release);
  }

  sweepOrphans(options: SweepOptions = {}): Promise<number> {
    return sweepOrphans(this.ctx, options.minAgeMs ?? this.ctx.limits.orphanGraceMs, options);
  }
}
