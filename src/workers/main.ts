/**
 * `longshore worker`: runs one fleet worker process until SIGTERM/SIGINT, then shuts down
 * gracefully and exits 0. A second signal exits at once.
 */
import { loadFleetConfig } from '../core/env.ts';
import { createLogger } from '../core/logger.ts';
import { exitOnSignals } from '../core/signals.ts';
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
  exitOnSignals(logger, 'shutdown', () => fleet.shutdown());
  return fleet;
}
