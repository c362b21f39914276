/**
 * The worker's connection to the cluster: Kubernetes clients, release storage (informers over
 * the system namespace) and the release engine. Started on the first job that needs the cluster,
 * so a worker that only runs Redis jobs (sync) needs no cluster, and shared by every handler of
 * the process so informer caches are built once. Handlers see storage through its interfaces
 * (ReleaseHistory, AppRecords of AppSpec); its maintenance (start, stop, the orphan sweep) stays
 * here.
 */

import type { AppSpec } from '../apps/spec.ts';
import { type FleetConfig, requireSecret } from '../core/env.ts';
import { ConfigError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { Sealer } from '../jobs/sealing.ts';
import { CacheFences } from '../kube/cache-fence.ts';
import { createKubeClients, type KubeClients, kubeSourceFromEnv } from '../kube/client.ts';
import { createReleaseEngine, type ReleaseEngine } from '../releases/index.ts';
import {
  type AppRecords,
  type ReleaseHistory,
  SecretReleaseStore,
  type StoreMaintenance,
  type SweepOptions,
} from '../storage/index.ts';
import { appSpecCodec } from './app-state.ts';
import { KnownNamespaces } from './deploy/known-namespaces.ts';

export interface Cluster {
  kube: KubeClients;
  /** Release history (what the engine keeps), for reports and checks of deployed revisions. */
  history: ReleaseHistory;
  /** One record per app, with the spec its last successful job saved. */
  apps: AppRecords<AppSpec>;
  engine: ReleaseEngine;
  /**
   * App namespaces this connection read or created (ensureNamespace): read once, not per deploy;
   * forgotten when a write finds one gone (src/workers/deploy/known-namespaces.ts).
   */
  namespaces: KnownNamespaces;
  /**
   * The orphan-chunk sweep of release storage (StoreMaintenance), for `prune`; its grace is
   * LONGSHORE_ORPHAN_GRACE_MS unless the caller passes `minAgeMs`.
   */
  sweepOrphans(options?: SweepOptions): Promise<number>;
}

export class ClusterConnection {
  private started?: Promise<{ cluster: Cluster; maintenance: StoreMaintenance }>;
  /** Set by stop(): informers aborted by the stop are not "restarting", so they are not logged. */
  private stopping = false;
  /** Every informer cache of the connection (storage and live objects), for the runner's cache fences. */
  readonly fences = new CacheFences();

  constructor(
    private readonly config: FleetConfig,
    private readonly logger: Logger,
  ) {}

  /** The cluster, connected on first use; a failed start is retried by the next caller. */
  get(): Promise<Cluster> {
    this.started ??= this.start().catch((err: unknown) => {
      this.started = undefined;
      throw err;
    });
    return this.started.then((s) => s.cluster);
  }

  private async start(): Promise<{ cluster: Cluster; maintenance: StoreMaintenance }> {
    if (!this.config.kubeconfig && !process.env.KUBERNETES_SERVICE_HOST) {
      throw new ConfigError(
        'no cluster configured: set KUBECONFIG to a kubeconfig file, or run the worker inside a cluster ' +
          '(`npm start` runs a simulated one)',
      );
    }
    const kube = createKubeClients(kubeSourceFromEnv(this.config.kubeconfig));
    const store = new SecretReleaseStore<AppSpec>({
      kube,
      namespace: this.config.namespace,
      spec: appSpecCodec,
      orphanGraceMs: this.config.orphanGraceMs,
      fences: this.fences,
      onInformerError: (err) => {
        if (!this.stopping)
          this.logger.warn({ err: (err as Error).message }, 'release storage informer restarting');
      },
    });
    await store.start();
    const sealer = new Sealer(requireSecret(this.config));
    const engine = createReleaseEngine({
      kube,
      history: store,
      secretDigestKey: sealer.valueDigestKey(),
      secretSealKey: sealer.historySealKey(),
      fences: this.fences,
      onInformerError: (what, err) => {
        if (!this.stopping)
          this.logger.warn({ what, err: (err as Error).message }, 'live object informer restarting');
      },
    });
    this.logger.info({ cluster: kube.kc.getCurrentCluster()?.server }, 'connected to the cluster');
    await redactStoredSecrets(engine, store, this.logger);
    return {
      cluster: {
        kube,
        history: store,
        apps: store.apps,
        engine,
        namespaces: new KnownNamespaces(),
        sweepOrphans: (options) => store.sweepOrphans(options),
      },
      maintenance: store,
    };
  }

  async stop(): Promise<void> {
    const started = this.started;
    this.started = undefined;
    this.stopping = true;
    const connected = await started?.catch(() => undefined);
    if (!connected) return;
    await connected.cluster.engine.stop();
    await connected.maintenance.stop();
  }
}

/**
 * History written before Secret values were redacted is rewritten once, when a worker connects
 * (docs/releases.md, "Secret values"); then chunks left unreferenced by earlier crashes, which may
 * hold values too, are swept. A failure is logged, not fatal: each job redacts its app's releases
 * again before reading them.
 */
async function redactStoredSecrets(engine: ReleaseEngine, store: StoreMaintenance, logger: Logger) {
  try {
    const report = await engine.redactHistory();
    for (const problem of report.unreadable)
      logger.warn(
        { problem },
        'release history: a revision that cannot be read was not checked for Secret values',
      );
    if (report.revisions === 0) return;
    const swept = await store.sweepOrphans();
    logger.info(
      { revisions: report.revisions, orphanChunks: swept },
      'release history: Secret values replaced by digests',
    );
  } catch (err) {
    logger.error({ err: (err as Error).message }, 'release history: redacting Secret values failed');
  }
}
