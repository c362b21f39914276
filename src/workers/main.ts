/**
 * `longshore worker`: runs one fleet worker process until SIGTERM/SIGINT, then shuts down
 * gracefully and exits 0. A second signal exits at once.
 */
import { loadFleetConfig } from '../core/env.ts';
import { createLogger } from '../core/logger.ts';
import { FleetWorker } from './fleet-worker.ts';
import type { HandlerRegistry } from './handler-registry.ts';
import { defaultHandlers } from './handlers/index.ts';

export interface WorkerProcessOptions {
  concurrency?: number;
  registry?: HandlerRegistry;
}

export async function runWorkerProcess(options: WorkerProcessOptions = {}): Promise<FleetWorker> {
  const config = loadFleetConfig();
  const logger = createLogger(config.logLevel, { component: 'worker' });
  const fleet = await FleetWorker.start({
    config,
    logger,
    registry: options.registry ?? defaultHandlers(),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
  });
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'signal received');
    fleet.shutdown().then(
      () => process.exit(0),
      (err: Error) => {
        logger.error({ err: err.message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return fleet;
}
