/**
 * `longshore scheduler`: a process that runs the sync scheduler until SIGTERM/SIGINT. Run it beside
 * the workers, as many replicas as you like: the fleet still enqueues one sync per interval.
 */
import { loadFleetConfig } from '../../core/env.ts';
import { ConfigError } from '../../core/errors.ts';
import { createLogger } from '../../core/logger.ts';
import { exitOnSignals } from '../../core/signals.ts';
import { SyncScheduler } from './sync-scheduler.ts';

export async function runSchedulerProcess(): Promise<SyncScheduler> {
  const config = loadFleetConfig();
  if (config.syncIntervalMs === 0) {
    throw new ConfigError(
      'LONGSHORE_SYNC_INTERVAL_MS is 0 (scheduling off): nothing for a scheduler process to do; set an interval such as 300000',
    );
  }
  const logger = createLogger(config.logLevel, { component: 'scheduler' });
  const scheduler = SyncScheduler.fromConfig(config, logger);
  scheduler.start();
  exitOnSignals(logger, 'stop', () => scheduler.stop());
  return scheduler;
}
