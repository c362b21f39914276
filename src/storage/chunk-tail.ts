/**
 * ChunkTail: a watch on the chunk Secrets of the system namespace from the moment it starts, whose
 * every chunk goes into the chunk LRU. Why: chunks are immutable, and a worker's job often reads
 * chunks another worker wrote (a deploy's diff against the deployed revision, a sync's reconcile of
 * every app). Without the tail each such read is a GET per worker per chunk, so a full sync of a
 * fleet that changed since a worker last saw it reads from the API server; with it, every chunk
 * written while the worker runs is already in memory, and only chunks older than the worker's start
 * are fetched (once, then cached).
 *
 * Its first start lists the chunks page by page (`warm`) and keeps only those that the releases'
 * current revisions use: what a full sync or the next deploy of every app reads. So a worker that
 * just started serves a sync from memory, like one that has run for a while, and the fleet's whole
 * history still never stays in its memory: older revisions' chunks are read past, and the warm-up
 * stops at half the LRU, leaving the rest to what jobs read. The watch starts at the first page's
 * resourceVersion: a chunk written while the pages are read comes by the watch (or both; the
 * second is ignored). Without `warm`, or on a restart after an error, the tail starts at the
 * collection's current resourceVersion (a list with limit 1 answers it). A dropped watch resumes from the
 * last resourceVersion it saw (bookmarks keep that fresh); a 410 Gone or any other error starts
 * from "now" again.
 * Chunks missed in between are fetched when needed: a gap makes reads slower, never wrong.
 * Upstream semantics: a watch from an explicit resourceVersion sends only changes after it, with no
 * synthetic ADDED events (https://kubernetes.io/docs/reference/using-api/api-concepts/#semantics-for-watch).
 */
import { type CoreV1Api, type KubeConfig, type V1Secret, Watch } from '@kubernetes/client-node';
import type { ChunkCache } from './chunk-cache.ts';
import { selectorFor } from './names.ts';
import { fromBase64Data } from './secret-builders.ts';

export interface ChunkTailOptions {
  kc: KubeConfig;
  core: CoreV1Api;
  namespace: string;
  cache: ChunkCache;
  /** Chunks found missing or corrupt (ChunkReader.bad): never cached, as for a GET's answer. */
  bad: ReadonlySet<string>;
  /** Told about watch failures, for logs. */
  onError?(err: unknown): void;
  /** First delay before a watch is restarted, doubled up to 5 s. Default 200 ms. */
  restartDelayMs?: number;
  /**
   * Chunks to keep from a list at the first start: called once, when the list starts (the
   * releases' current revisions' chunks, from the synced index informer). Without it no list.
   */
  warm?: () => ReadonlySet<string>;
}

/** Chunk Secrets per page of the warm-up list: ~1–2 MB of JSON at the usual chunk sizes. */
export const WARM_PAGE_SIZE = 250;

const MAX_RESTART_DELAY_MS = 5_000;

export class ChunkTail {
  private stopped = true;
  private abort?: AbortController;
  private resourceVersion?: string;
  private delay: number;
  private timer?: NodeJS.Timeout;
  /** Chunks put into the cache from the watch (a figure for tests and benchmarks). */
  received = 0;
  /** Chunks put into the cache by the warm-up list. */
  warmed = 0;
  /** Settles when the warm-up list has been read to its end, or given up (tests, benchmarks). */
  warming: Promise<void> = Promise.resolve();
  private warmStarted = false;

  constructor(private readonly options: ChunkTailOptions) {
    this.delay = options.restartDelayMs ?? 200;
  }

  /** Resolves once the watch is open: chunks written after that reach the cache. */
  async start(): Promise<void> {
    this.stopped = false;
    try {
      await this.open();
    } catch (err) {
      this.failed(err);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort?.abort();
    this.abort = undefined;
  }

  private async open(): Promise<void> {
    const { namespace, core, kc } = this.options;
    const labelSelector = selectorFor('chunk');
    if (this.resourceVersion === undefined) {
      const wanted = !this.warmStarted && this.options.warm ? this.options.warm() : undefined;
      const limit = wanted?.size ? WARM_PAGE_SIZE : 1;
      const list = await core.listNamespacedSecret({ namespace, labelSelector, limit });
      this.warmStarted = true;
      this.resourceVersion = list.metadata?.resourceVersion;
      if (wanted?.size) {
        this.keep(list.items, wanted);
        const next = list.metadata?._continue;
        // The rest in the background: the watch opens now, jobs meanwhile GET what they miss.
        if (next) this.warming = this.warmFrom(next, wanted);
      }
    }
    if (this.stopped) return;
    let ended = false;
    const controller = await new Watch(kc).watch(
      `/api/v1/namespaces/${namespace}/secrets`,
      {
        labelSelector,
        allowWatchBookmarks: true,
        ...(this.resourceVersion ? { resourceVersion: this.resourceVersion } : {}),
      },
      (phase, object: V1Secret & { code?: number }) => this.event(phase, object),
      (err) => {
        if (ended) return;
        ended = true;
        if (this.abort === controller) this.abort = undefined;
        // A server closing a watch (its timeout) is routine: resume from the last resourceVersion.
        // After an error (a 410 answered as an HTTP status among them) start from the present:
        // retrying a resourceVersion the server refused would fail the same way.
        if (err) this.resourceVersion = undefined;
        this.failed(err, { quiet: !err });
      },
    );
    if (this.stopped) controller.abort();
    else this.abort = controller;
  }

  /** Reads the pages after the first. A failure ends the warm-up (reads fall back to GETs). */
  private async warmFrom(token: string, wanted: ReadonlySet<string>): Promise<void> {
    const { namespace, core } = this.options;
    const labelSelector = selectorFor('chunk');
    try {
      for (let next: string | undefined = token; next && !this.stopped && this.room(); ) {
        const page = await core.listNamespacedSecret({
          namespace,
          labelSelector,
          limit: WARM_PAGE_SIZE,
          _continue: next,
        });
        this.keep(page.items, wanted);
        next = page.metadata?._continue;
      }
    } catch (err) {
      if (!this.stopped) this.options.onError?.(err);
    }
  }

  /** Half the LRU at most: the warm-up must not push out what jobs read. */
  private room(): boolean {
    return this.options.cache.bytes < this.options.cache.maxBytes / 2;
  }

  private keep(items: V1Secret[], wanted: ReadonlySet<string>): void {
    for (const secret of items) {
      const name = secret.metadata?.name;
      if (!name || !wanted.has(name) || this.options.bad.has(name) || this.options.cache.has(name)) continue;
      if (!this.room()) return;
      this.options.cache.set(name, fromBase64Data(secret.data));
      this.warmed++;
    }
  }

  private event(phase: string, object: V1Secret & { code?: number }): void {
    if (phase === 'ERROR') {
      // 410 Gone: the resourceVersion is too old to resume from; start from now.
      if (object.code === 410) this.resourceVersion = undefined;
      return;
    }
    const rv = object.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (phase !== 'ADDED' && phase !== 'MODIFIED') return;
    const name = object.metadata?.name;
    if (!name || this.options.bad.has(name) || this.options.cache.has(name)) return;
    this.options.cache.set(name, fromBase64Data(object.data));
    this.received++;
    this.delay = this.options.restartDelayMs ?? 200;
  }

  private failed(err: unknown, { quiet = false } = {}): void {
    if (this.stopped) return;
    if (!quiet) this.options.onError?.(err);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.stopped) return;
      this.open().catch((e) => this.failed(e));
    }, this.delay);
    this.timer.unref();
    this.delay = Math.min(this.delay * 2, MAX_RESTART_DELAY_MS);
  }
}
