/**
 * `longshore worker`: runs one fleet worker process until SIGTERM/SIGINT, then shuts down
 * gracefully and exits 0. A second signal exits at once.
 */
import { loadFleetConfig } from '../core/env.ts';
import { ConfigError } from '../core/errors.ts';
import { createLogger } from '../core/logger.ts';
import { exitOnSignals } from '../core/signals.ts';
import { FleetWorker } from './fleet-worker.ts';
import type { HandlerRegistry } from './handler-registry.ts';
import { defaultHandlers } from './handlers/index.ts';
import { limitHeapGrowth } from './heap-growth.ts';

export interface WorkerProcessOptions {
  concurrency?: number;
  registry?: HandlerRegistry;
}

export async function runWorkerProcess(options: WorkerProcessOptions = {}): Promise<FleetWorker> {
  const config = loadFleetConfig();
  const logger = createLogger(config.logLevel, { component: 'worker' });
  limitHeapGrowth(config.heapGrowthPercent);
  let fleet: FleetWorker;
  try {
    fleet = await FleetWorker.start({
      config,
      logger,
      registry: options.registry ?? defaultHandlers(),
      ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    });
  } catch (err) {
    // A worker that cannot start (port in use, Redis unreachable, no secret) says why in one log
    // line and exits at once, so its supervisor sees the failure instead of a process that hangs.
    const message = err instanceof Error ? err.message : String(err);
    logger.fatal({ err: message }, `worker could not start: ${message}`);
    // Exit codes as the CLI's (src/producers/cli/exit-codes.ts): 2 for configuration to fix.
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
  exitOnSignals(logger, 'shutdown', () => fleet.shutdown());
  return fleet;
}
