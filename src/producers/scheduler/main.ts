/**
 * `longshore scheduler`: a process that runs the sync scheduler and the daily prune scheduler
 * until SIGTERM/SIGINT. Run it beside the workers, as many replicas as you like: the fleet still
 * enqueues one sync per sync interval and one prune per prune interval. Like a worker it serves
 * /healthz, /readyz and /metrics on LONGSHORE_METRICS_PORT (the orchestrator's probes,
 * infra/deploy/scheduler.yaml).
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import { loadFleetConfig } from '../../core/env.ts';
import { ConfigError } from '../../core/errors.ts';
import { createLogger } from '../../core/logger.ts';
import { exitOnSignals } from '../../core/signals.ts';
import { type HealthServer, startHealthServer } from '../../workers/health-server.ts';
import { schedulerReadiness } from './readiness.ts';
import { SyncScheduler } from './sync-scheduler.ts';

export async function runSchedulerProcess(): Promise<SyncScheduler[]> {
  const config = loadFleetConfig();
  if (config.syncIntervalMs === 0 && config.pruneIntervalMs === 0) {
    throw new ConfigError(
      'LONGSHORE_SYNC_INTERVAL_MS and LONGSHORE_PRUNE_INTERVAL_MS are 0 (scheduling off): nothing for a scheduler process to do; set an interval such as 300000',
    );
  }
  const logger = createLogger(config.logLevel, { component: 'scheduler' });
  const schedulers = (['sync', 'prune'] as const)
    .map((job) => SyncScheduler.fromConfig(config, logger, undefined, job))
    .filter((s) => s.enabled);
  // The scheduler's /metrics: the process's default metrics.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'longshore_scheduler_' });
  let health: HealthServer | undefined;
  if (config.metricsPort >= 0) {
    health = await startHealthServer(
      config.metricsHost,
      config.metricsPort,
      schedulerReadiness(schedulers),
      registry,
    );
    logger.info({ healthPort: health.port }, 'health server listening (/healthz, /readyz, /metrics)');
  }
  for (const s of schedulers) s.start();
  exitOnSignals(logger, 'stop', async () => {
    await Promise.all(schedulers.map((s) => s.stop()));
    await health?.close();
  });
  return schedulers;
}
