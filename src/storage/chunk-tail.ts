/**
 * ChunkTail: a watch on the chunk Secrets of the system namespace from the moment it starts, whose
 * every chunk goes into the chunk LRU. Why: chunks are immutable, and a worker's job often reads
 * chunks another worker wrote (a deploy's diff against the deployed revision, a sync's reconcile of
 * every app). Without the tail each such read is a GET per worker per chunk, so a full sync of a
 * fleet that changed since a worker last saw it reads from the API server; with it, every chunk
 * written while the worker runs is already in memory, and only chunks older than the worker's start
 * are fetched (once, then cached).
 *
 * No initial list of the objects: the tail starts at the collection's current resourceVersion (a
 * list with limit 1 answers it), so a fleet's whole history never passes through the worker's
 * memory, only what is written from now on, bounded by the LRU. A dropped watch resumes from the
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
}

const MAX_RESTART_DELAY_MS = 5_000;

export class ChunkTail {
  private stopped = true;
  private abort?: AbortController;
  private resourceVersion?: string;
  private delay: number;
  private timer?: NodeJS.Timeout;
  /** Chunks put into the cache from the watch (a figure for tests and benchmarks). */
  received = 0;

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
      const list = await core.listNamespacedSecret({ namespace, labelSelector, limit: 1 });
      this.resourceVersion = list.metadata?.resourceVersion;
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
