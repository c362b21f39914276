/**
 * How long-running processes (worker, scheduler) end: the first SIGTERM/SIGINT runs `stop` and
 * exits 0 when it finishes (1 when it fails); a second signal exits 1 at once, for an operator who
 * will not wait.
 */
import type { Logger } from './logger.ts';

export function exitOnSignals(logger: Logger, what: string, stop: () => Promise<void>): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'signal received');
    stop().then(
      () => process.exit(0),
      (err: Error) => {
        logger.error({ err: err.message }, `${what} failed`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
